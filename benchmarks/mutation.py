"""Mutation testing of the core modules: the report of what `mutmut run` found (`make mutation` runs both).

mutmut changes one thing at a time in course_lib's core modules (an operator, a constant, a dropped argument ...)
and runs the fast tests that reach the changed function; a mutant the tests do not notice "survived". Each
survivor is either explained in TRIAGE below (equivalent: no test could notice; accepted: a test could, but the
change is harmless or only reachable on a GPU) or counted against the suite.

Run: python benchmarks/mutation.py   (after `mutmut run`; reads mutants/, writes benchmarks/results/mutation.md
and mutation.json). Resumable: `mutmut run` keeps every verdict in mutants/ and tests only the rest.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's course_lib (its commit goes in the report), not an installed one
OUT = ROOT / "benchmarks" / "results"
# the report's row -> the module's file under course_lib/ (the rows keep the names of the modules before they moved
# into subpackages; "config" is training/config.py, CourseConfig and the checks of the training settings)
MODULES = {"grpo": "grpo.py", "answers": "answers.py", "rewards": "rewards.py", "selection": "selection.py",
           "difficulty": "difficulty.py", "studies": "research/studies.py", "training": "training/__init__.py",
           "config": "training/config.py", "sweep": "research/sweep.py", "prompts": "prompts.py",
           "errors": "errors.py"}
# what made the verdicts; a run made by hand (e.g. with one child beside another job) names its own command here
COMMAND = os.environ.get("MUTATION_COMMAND") or (
    "make mutation  (OMP_NUM_THREADS=1 nice -n 10 mutmut run --max-children 2; python benchmarks/mutation.py)")

# Survivors that are no bug the suite misses: mutant name -> ("equivalent" | "accepted", why[, text its added line
# holds]). Names change when their function changes: an entry whose text is not in the mutant's change is not used
# (the survivor reads "unexplained"), and an entry naming no mutant is reported as stale.
TRAINING = "course_lib.training"  # prefixes of the entries below
# reasons given to _train_grpo's mutants under two numberings (before and after round 25 moved its lines)
PLACES_MODEL = ("whether load_model places the model on the device: on a CPU it is there either way; on a GPU the "
                "Trainer moves it")
MAIN_PROCESS_FIRST = ("main_process_first waits for the main process when there are several; with one it only runs "
                      "the block (`local` matters across nodes, `desc` is a log label)")
CONFIG = "course_lib.training.config"
TRIAGE: dict[str, tuple[str, ...]] = {
    "course_lib.selection.x_charge_estimation__mutmut_23": (
        "equivalent", "tokens per completion (1 or 2) does not enter the count of completions that is read",
        "estimation_cost(pool_size, k, 2)"),
    "course_lib.research.sweep.x_parse_where__mutmut_14": (
        "equivalent", "the message used when no pair is malformed is never shown (the check passes)", 'else "XXXX"'),
    **{f"course_lib.selection.x__seeded_order__mutmut_{n}": (
        "equivalent", "ids are unique (checked before), so how a sort by id treats ties cannot matter", kind)
       for n, kind in ((14, "kind=None"), (17, "ids.astype(str), )"), (22, 'kind="XXstableXX"'), (23, 'kind="STABLE"'))},
    **{f"course_lib.selection.x__seeded_order__mutmut_{n}": (
        "equivalent", "reset_index keeps the old index as a column (`index`, or `level_0` where the table has an "
                      "`index` column, as a test's has): the ids and their order are unchanged", drop)
       for n, drop in ((11, "drop=None"), (24, "drop=False"), (25, "drop=None"), (29, "drop=False"))},
    "course_lib.selection.x__ranked__mutmut_11": (
        "equivalent", "numpy reads the sort kind case-insensitively: 'STABLE' is 'stable'", 'kind="STABLE"'),
    "course_lib.selection.x_charge_estimation__mutmut_44": (
        "accepted", "rounding to 10 rather than 9 decimals before the floor: both absorb floating-point error "
                    "(about 1e-15 here), and no budget or cost has a real 10th decimal", "cost, 10)"),
    **{f"course_lib.difficulty.x_read_table__mutmut_{n}": (
        "equivalent", "pandas reads UTF-8 when no encoding is given (`encoding or \"utf-8\"` in pandas.io.common), "
                      "whatever the locale", change)
       for n, change in ((16, "encoding=None"), (19, "nrows=0, )"), (30, "encoding=None"),
                         (35, 'str}, keep_default_na'))},
    **{f"course_lib.difficulty.x_read_table__mutmut_{n}": (
        "equivalent", "'UTF-8' and 'utf-8' name the same codec", '"UTF-8"') for n in (22, 43)},
    **{f"course_lib.difficulty.x_read_table__mutmut_{n}": (
        "equivalent", "the first read only learns the column names: reading one row, or all of them, gives the same "
                      "names", change) for n, change in ((15, "nrows=None"), (18, '(path, encoding="utf-8")'),
                                                         (20, "nrows=1"))},
    **{f"course_lib.grpo.x_{name}__mutmut_{n}": (
        "accepted", "numbers in, the same numbers out without dtype=float; only a list of numeric strings would "
                    "differ, which no caller passes", change)
       for name, n, change in (("dead_group_probability", 4, "dtype=None"), ("dead_group_probability", 6, "(p, )"),
                               ("informative_share", 3, "dtype=None"), ("informative_share", 5, "pass_rates, )"))},
    "course_lib.rewards.x_correctness_reward__mutmut_48": (
        "equivalent", "a completion whose check raised is scored `1.0 if ok else 0.0`: None scores 0.0 as False does",
        "ok = None"),
    f"{CONFIG}.x_nearest_splits__mutmut_7": (
        "equivalent", "when a batch does not split the process count is at least 2, so both candidates (multiples of "
                      "it) are 0 or at least 2: none is 1", "if n > 1]"),
    f"{TRAINING}.x__train_grpo__mutmut_151": (
        "equivalent", "lora_dropout=0.0 is the default of the pinned peft 0.21 (set so another release cannot change "
                      "it unseen)", "lora_alpha=config.lora_alpha, bias="),
    **{f"course_lib.rewards.x_completion_text__mutmut_{n}": (
        "equivalent", "a message without content read as None rather than '': the next line returns '' for anything "
                      "that is not a string", change) for n, change in ((5, '"content", None)'), (7, '"content", )'))},
    **{f"course_lib.research.sweep.x_run_point_notebook__mutmut_{n}": (
        "accepted", "how much of a failed point's traceback is kept, and how its JSON record is indented: what a "
                    "reader sees, not what is read back (the last line, which the tests check, is kept)", change)
       for n, change in ((58, "limit=None"), (59, "limit=4"), (94, "indent=None"), (97, "dumps(record, default=str)"),
                         (99, "indent=2"))},
    **{f"course_lib.research.sweep.x_run__mutmut_{n}": (
        "accepted", "the progress bar's settings: what the terminal shows while a sweep runs, nothing it records",
        change) for n, change in ((3, "progress: bool = False"),)},  # the bar's other settings: _TRIAGED_SWEEP_B
    "course_lib.research.sweep.x_aggregate__mutmut_24": (
        "equivalent", "pandas reads to_csv(index=None) as no index, as index=False (the table's exact text is tested)",
        "to_csv(index=None)"),
    **{f"course_lib.research.sweep.x_run_point_notebook__mutmut_{n}": (
        "accepted", "default=str is a safety net: every value of a point record comes from JSON (the grid, --set "
                    "values, the notebook's records read back from its JSON output) or is a string or number the "
                    "sweep makes, so no input reaches it", change)
       for n, change in ((95, "default=None)"), (98, "indent=1, )"))},
    **{f"course_lib.research.sweep.x_run__mutmut_{n}": (
        "equivalent", "check_writable_folder has made OUT already, so points/ one level below needs no parents",
        change) for n, change in ((25, "parents=None"), (27, '"points").mkdir(exist_ok=True)'))},  # (_32 is another now)
    "course_lib.research.sweep.x_run__mutmut_1": (
        "accepted", "the default of 2 workers or 3: worker_count caps it by the cores (2 here and on Binder)",
        "workers: int = 3"),
    **{f"course_lib.research.sweep.x_worker_count__mutmut_{n}": (
        "accepted", "which caller's line the capped-workers warning names (the warning's text is tested)", change)
       for n, change in ((18, 'core(s)", )'), (19, "stacklevel=4"))},
    **{f"course_lib.research.studies.x_rank_correlation__mutmut_{n}": (
        "accepted", "Spearman's rho reads ranks: integers and the same numbers as floats rank alike; only a list of "
                    "numeric strings would differ, which no caller passes", change)
       for n, change in ((5, "list(x), dtype=None"), (7, "list(x), )"), (10, "list(y), dtype=None"), (12, "list(y), )"))},
    "course_lib.answers.x_extract_tagged__mutmut_11": (
        "equivalent", "the text holds exactly one <answer> (checked first): its first and last are the same", "rindex("),
    **{f"course_lib.answers.x_extract_tagged__mutmut_{n}": (
        "equivalent", "a close found after the tag is at least 8 characters in (past '<answer>'): >= 0, > 0 and >= 1 "
                      "agree", change) for n, change in ((28, "end > 0"), (29, "end >= 1"))},
    **{f"course_lib.grpo.x_{name}__mutmut_{n}": (
        "equivalent", "the tensors are 2-D (N, T): dimension +1 is dimension -1", change)
       for name, n, change in (("_aggregate", 8, "masked.sum(+1)"), ("_aggregate", 12, "mask.sum(+1)"),
                               ("completion_logprobs", 91, "dim=+1"))},
    "course_lib.grpo.x_completion_logprobs__mutmut_49": (
        "equivalent", "the attention mask is read as attend or not: 2 attends as 1 does", "] = 2"),
    **{f"course_lib.grpo.x_completion_logprobs__mutmut_{n}": (
        "equivalent", "each row is prompt + completion padded on the right, and the model is causal: padding after "
                      "a token never changes what it sees, with or without a mask", change)
       for n, change in ((54, "attention_mask=None"), (56, "ids.to(device), ).logits"))},
    **{f"course_lib.grpo.x_completion_logprobs__mutmut_{n}": (
        "accepted", "which device a tensor is made on: the CPU either way here; on a GPU a mismatch fails at once",
        change) for n, change in ((50, "device = None"), (57, "ids.to(None)"), (58, "attention.to(None)"),
                                  (62, "device=None)"), (65, "n_completion, )"), (69, "device=None)"),
                                  (72, "n_completion, )"), (77, "device=None)"), (80, "- 1, )"), (100, "device=None)"),
                                  (102, "torch.tensor(c_ids, )"))},
    **{f"course_lib.grpo.x_grpo_loss__mutmut_{n}": (
        "accepted", "a ratio exactly on a clip bound (a float equal to 0.8 or 1.28) is the only case this changes",
        change) for n, change in ((79, "ratio <= 1 - epsilon"), (85, "ratio >= 1 + epsilon_high"))},
    **{name: ("equivalent", "groupby sorts by default: dropping `sort=True` (or passing sort=None) leaves the groups "
                            "sorted", change)
       for name, change in (("course_lib.research.studies.x_mechanism_table__mutmut_29", "groupby(list(by), )"),
                            ("course_lib.research.studies.x_paired_difference__mutmut_15", "groupby(list(by), )"),
                            ("course_lib.research.studies.x_per_level_change__mutmut_12", "groupby(list(by), )"),
                            ("course_lib.research.studies.x_paired_verdicts__mutmut_9", "groupby(list(by), )"),
                            ("course_lib.research.studies.x_gain_verdicts__mutmut_7", "groupby(list(by), )"),
                            ("course_lib.research.studies.x_gain_by_strategy__mutmut_19", "groupby(list(by), )"),
                            ("course_lib.research.studies.x_per_level_verdicts__mutmut_16", "groupby(list(by), )"))},
    "course_lib.research.studies.x_verdict_in_words__mutmut_7": (
        "equivalent", "a difference is called only where its 95% interval excludes 0, and the interval holds its "
                      "mean: a mean of exactly 0 never reaches the direction", "mean >= 0"),
    **{f"course_lib.research.studies.xǁSharedBaselineǁ__init____mutmut_{n}": (
        "equivalent", "the values are numbers, and DescrStatsW's mean and variance are float64 for integers too",
        change) for n, change in ((4, "dtype=None"), (6, "asarray(values, )"))},
    **{name: ("equivalent", "pass rates are validated as numbers in [0, 1]; read as their own dtype they are the "
                            "same floats", "dtype=None")
       for name in ("course_lib.selection.x_degenerate_medium__mutmut_9", "course_lib.selection.x_selection_summary__mutmut_15")},
    **{f"course_lib.research.studies.x_equivalence_verdict__mutmut_{n}": (
        "equivalent", "the values are numbers (seeds' gains), and an array of them is float without dtype=float", change)
       for n, change in ((5, "dtype=None"), (7, "list(values), )"))},
    "course_lib.research.studies.x_seeds_needed__mutmut_15": (
        "accepted", "only a target power of 0, which no plan asks for, tells them apart (2 seeds against 0): from 2 "
                    "seeds on the loops agree, since 0 or 1 seeds give no t-test", "range(most + 1)"),
    "course_lib.research.studies.x_seeds_needed__mutmut_28": (
        "accepted", "power exactly equal to the target (a continuous function of sd and difference) is the only case "
                    "this changes", ") > power"),
    "course_lib.training.x__pad_cat__mutmut_1": (
        "equivalent", "its one caller always passes `left`, so the default is never used", "left=True):"),
    **{f"course_lib.training.x__finish__mutmut_{n}": (
        "accepted", "the summary's indentation is layout (a test could read it; json.loads reads the same dict)",
        change) for n, change in ((27, "indent=None"), (29, "json.dumps(summary, )"), (30, "indent=2"))},
    **{f"course_lib.training.x__finish__mutmut_{n}": (
        "equivalent", change_why, change)
       for n, change, change_why in (
           (6, "marker=None", "marker=None is falsy like marker=False: no marker file in final/"),
           (33, "ignore_errors=None", "the staging folder is there when it is removed, so ignoring errors is moot"),
           (35, "STAGING, )", "the staging folder is there when it is removed, so ignoring errors is moot"))},
    **{f"course_lib.training.x__finished_summary__mutmut_{n}": (
        "accepted", "where the warning points (its stacklevel) is not what the run does", change)
       for n, change in ((25, 'checkpoint", )'), (26, "stacklevel=4"))},
    **{f"course_lib.training.x__finished_summary__mutmut_{n}": (
        "accepted", "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI", change)
       for n, change in ((8, "encoding=None"),)},
    "course_lib.training.x__finished_summary__mutmut_10": ("equivalent", "'UTF-8' and 'utf-8' name the same codec",
                                                           '"UTF-8"'),
    **{f"course_lib.training.x_check_lora_targets__mutmut_{n}": (
        "equivalent", "the last part of a dotted name is the same however many times the name is split", change)
       for n, change in ((6, 'rsplit(".", )'), (9, 'rsplit(".", 2)'))},
    **{f"course_lib.training.x_merged_folder__mutmut_{n}": (
        "accepted", "the device the merge loads to: the same on a CPU-only machine (a GPU machine would merge on "
                    "its default device, with the same weights)", change)
       for n, change in ((13, "device=None"), (15, "str(run_dir), )"))},
    **{f"course_lib.training.x_merged_folder__mutmut_{n}": (
        "equivalent", "transformers 5 always writes safetensors: the flag is ignored", change)
       for n, change in ((29, "safe_serialization=None"), (31, "staging, )"), (32, "safe_serialization=False"))},
    **{f"course_lib.difficulty.x__files_fingerprint__mutmut_{n}": (
        "equivalent", "a larger cap on the safetensors header read (32 MiB instead of 16): real headers are far "
                      "smaller, so the same bytes are read", change) for n, change in ((42, "2 << 24"), (43, "1 << 25"))},
    "course_lib.prompts.x_prompt_text__mutmut_4": (
        "equivalent", "skip_special_tokens=False is decode's default", "tokenizer), )"),
    **{f"course_lib.difficulty.x_difficulty_tables__mutmut_{n}": (
        "accepted", why, change) for n, why, change in (
        (2, "only the progress bar's default changes (every caller passes `progress`)", "progress: bool = False"),
        (28, "only whether a progress bar is shown", "progress=None)"),
        (36, "only whether a progress bar is shown (estimate's default shows one)", "seed=seed, )"))},
    **{f"course_lib.difficulty.x_read_chunk__mutmut_{n}": (
        "accepted", "which caller's line the bad-chunk warning names (its text is tested; under mutmut a trampoline "
                    "sits between the frames, so no test can check the line there)", change)
       for n, change in ((22, 'sampling it again", )'), (23, "stacklevel=4"))},
    **{f"course_lib.difficulty.x_estimate__mutmut_{n}": (
        "accepted", "a sampling setting's name only feeds the cache key: renamed, equal settings still share a "
                    "folder and different ones do not (only the folder's name changes)", change)
       for n, change in ((43, '"XXkXX"'), (44, '"K"'), (45, '"XXtemperatureXX"'), (46, '"TEMPERATURE"'),
                         (47, '"XXmax_new_tokensXX"'), (48, '"MAX_NEW_TOKENS"'), (49, '"XXseedXX"'), (50, '"SEED"'),
                         (51, '"XXchunk_sizeXX"'), (52, '"CHUNK_SIZE"'), (53, '"XXbackendXX"'), (54, '"BACKEND"'),
                         (55, '"XXpromptsXX"'), (56, '"PROMPTS"'))},
    **{f"course_lib.difficulty.x__score_chunk__mutmut_{n}": (
        "equivalent", "the backend's default: estimate always passes its own (checked) backend, and any name but "
                      "'vllm' samples with transformers", change) for n, change in ((1, 'backend="XXhfXX"'),
                                                                                    (2, 'backend="HF"'))},
    "course_lib.difficulty.x__to_table__mutmut_62": (
        "equivalent", "every row has `clipped` (ROW_TYPES requires it; a cached chunk without it is sampled again), "
                      "so the column is always there", '("clipped" in table) or True'),
    **{f"course_lib.difficulty.x_model_fingerprint__mutmut_{n}": (
        "accepted", "reachable only on a GPU: the copy stays on the GPU and numpy() refuses it; on the CPU the copy "
                    "is the same", change) for n, change in ((27, "flat.to(None, torch.float32)"),
                                                            (29, "flat.to(torch.float32)"))},
    **{f"course_lib.difficulty.x_cache_key__mutmut_{n}": (
        "accepted", "the joiner between the parts (fixed-length hex fingerprints, then JSON) and the key's length "
                    "only name the cache folder: equal inputs still share a folder and different ones do not (a cache "
                    "from before the change would be sampled once more, never misread)", change)
       for n, change in ((11, '"XX/XX".join'), (12, "hexdigest()[:25]"))},
    **{f"course_lib.difficulty.x_model_fingerprint__mutmut_{n}": (
        "accepted", why, change) for n, why, change in (
        (5, "which side of the 16-million-parameter line a model of exactly that size falls: either is a valid line",
         "<= FULL_HASH_LIMIT"),
        (23, "the density of a large model's weight sample (a cost knob): its exact float64 sums still see any "
             "changed weight", "max(2, "),
        (25, "the density of a large model's weight sample (a cost knob): its exact float64 sums still see any "
             "changed weight", "// 4097"))},
    # training.py: what a run on one CPU process cannot tell apart
    f"{TRAINING}.xǁLedgerRewardǁ__call____mutmut_52": (
        "equivalent", "TRL hands the reward whole groups (check_batch refuses a batch that does not split into "
                      "them), so one more possible start never begins a group", "self.group_size + 2"),
    **{f"{TRAINING}.x__dynamic_trainer_class__mutmut_{n}": (
        "equivalent", "torch's pad with value=None pads with 0, the value given", change)
       for n, change in ((86, 'gather("prompt_mask", None'), (106, 'gather("completion_mask", None)'),
                         (130, "gather(key, None)"))},
    f"{CONFIG}.x_nearest_splits__mutmut_16": (
        "equivalent", "n + 1 never divides n, so counting divisors up to n + 1 finds the same ones", "+ 2)"),
    f"{TRAINING}.x__check_run_dir__mutmut_18": (
        "equivalent", "the previous config is the defaults updated with the saved one, so every memory-only field is "
                      "there to pop", "pop(name, )"),
    f"{TRAINING}.x__finish__mutmut_37": (
        "accepted", "the staging folder exists and is removable once final/ has moved out of it; not ignoring an "
                    "error there only matters on a file system that fails after a successful rename",
        "ignore_errors=False"),
    **{name: ("accepted", "the stack level only chooses which line a warning names as its source", change)
       for name, change in ((f"{TRAINING}.x__prepare_run_dir__mutmut_18", "'the start'}\", )"),
                            (f"{TRAINING}.x__prepare_run_dir__mutmut_23", "stacklevel=4"),
                            (f"{TRAINING}.x_train_grpo__mutmut_20", "micro_batch_prompts}\", )"))},
    # (train_grpo's _21 of the report, now the reward_weights message dropped, is in KILLED_BY_A_NEWER_TEST)
    **{f"{TRAINING}.x__train_grpo__mutmut_{n}": (
        "accepted", "only the progress bar changes (train_grpo passes `progress` on explicitly)", change)
       for n, change in ((1, "progress: bool = False"), (40, "run_dir, None,"),
                         (44, "trl_config(config, run_dir, longest_prompt("))},
    **{f"{TRAINING}.x__train_grpo__mutmut_{n}": (
        "accepted", "the longest prompt sizes vLLM's engine only (`vllm_max_model_length`); a run without vLLM (no "
                    "GPU here) never reads it", change)
       for n, change in ((41, "progress, None)"), (45, "progress, )"), (46, "and False"), (47, "or True"),
                         (48, "longest_prompt(None"), (49, "longest_prompt(problems, None)"),
                         (50, "longest_prompt(model_name)"), (51, "longest_prompt(problems, )"), (52, "else 1)"))},
    **{f"{TRAINING}.x__train_grpo__mutmut_{n}": (
        "accepted", PLACES_MODEL, change)
       for n, change in ((69, "place=None"), (71, "load_model(model_name, )"), (72, "place=True"))},
    **{f"{TRAINING}.x__train_grpo__mutmut_{n}": (
        "accepted", MAIN_PROCESS_FIRST, change)
       for n, change in ((88, "local=None"), (89, "desc=None"), (90, "main_process_first(desc="),
                         (91, "local=False, )"), (92, "local=True"), (93, "XXpreparing"), (94, "PREPARING"))},
    # trl_loss_on_fixed_batch: TRL's loss and gradients on a fixed batch (notebook 04's check), no training step
    **{f"{TRAINING}.x_trl_loss_on_fixed_batch__mutmut_{n}": ("equivalent", why, change) for n, why, change in (
        (39, "no optimizer step is taken: the learning rate is never read", "1.001"),
        (76, "the batch is handed to TRL directly (and its prompts through rollout_func): the dataset's column is "
             "never read", '"XXpromptXX"'),
        (77, "the batch is handed to TRL directly (and its prompts through rollout_func): the dataset's column is "
             "never read", '"PROMPT"'))},
    **{f"{TRAINING}.x_trl_loss_on_fixed_batch__mutmut_{n}": ("accepted", why, change) for n, why, change in (
        (9, "only silences TRL's notice that rollout_func is experimental", "SILENCE\", None)"),
        (12, "only silences TRL's notice that rollout_func is experimental", "XXTRL_EXPERIMENTAL_SILENCEXX"),
        (13, "only silences TRL's notice that rollout_func is experimental", "trl_experimental_silence"),
        (14, "only silences TRL's notice that rollout_func is experimental", "XX1XX"),
        (20, "the course's tokenizers add no special tokens either way", "processing_class(text, )"),
        (21, "the course's tokenizers add no special tokens either way", "add_special_tokens=True"),
        (42, "the completion limit matters only for dr_grpo's denominator, which every caller gives explicitly",
         '"max_completion_length": 97'),
        (44, "where TRL would write (it writes nothing here: no save, no training loop)", "output_dir=None"),
        (50, "where TRL would write (it writes nothing here: no save, no training loop)", "GRPOConfig(use_cpu"),
        (57, "where TRL would write (it writes nothing here: no save, no training loop)", "str(None)"),
        (45, "the CPU either way on this machine; on a GPU TRL would place the model there", "use_cpu=None"),
        (51, "the CPU either way on this machine; on a GPU TRL would place the model there", "str(out), bf16=False"),
        (58, "the CPU either way on this machine; on a GPU TRL would place the model there",
         "use_cpu=torch.cuda.is_available()"),
        (53, "only whether TRL reports to a tracker (none installed here); no training loop runs", "bf16=False, per_device"),
        (54, "the batch is handed to TRL directly: the configured batch size is only checked against G, and the "
             "default (8) divides by the groups the tests use", "num_generations=group_size"))},
    f"{TRAINING}.x__train_grpo__mutmut_152": (
        "equivalent", "LoraConfig's bias defaults to 'none', the value given",
        "lora_dropout=0.0, target_modules="),
    **{f"{TRAINING}.x_{function}__mutmut_{n}": (
        "accepted", "without encoding='utf-8' the file is read with the locale's encoding, which is UTF-8 on this "
                    "machine and CI; the explicit encoding matters only on a machine with another locale",
        "encoding=None") for function, n in (("read_run_config", 8), ("verify_final", 16))},
    **{f"{TRAINING}.x_{function}__mutmut_{n}": ("equivalent", "'UTF-8' and 'utf-8' name the same codec", '"UTF-8"')
       for function, n in (("read_run_config", 10), ("verify_final", 18))},
    **{f"{TRAINING}.x_{function}__mutmut_{n}": (
        "equivalent", "what an unreadable file becomes is only tested for being a dict: '' fails that as None does",
        change) for function, n, change in (("read_run_config", 11, 'previous = ""'), ("verify_final", 19, 'summary = ""'))},
    f"{TRAINING}.x_read_run_config__mutmut_22": (
        "equivalent", "the same check requires a `config` key too, so the keys are always more than model and "
                      "problem_ids: a strict superset and a superset agree", "} < set(previous)"),
    f"{TRAINING}.x_load_trained__mutmut_55": (
        "accepted", "`.to(None)` leaves the model where it loaded, the CPU, which is also the base model's device here",
        ".to(None)"),
    **{f"course_lib.research.studies.x_t_interval__mutmut_{n}": (
        "equivalent", "the values are numbers (a list or a column of floats or ints): numpy's mean and sd are float64 "
                      "either way", change) for n, change in ((3, "dtype=None)"), (5, "list(values), )"))},
    **{f"course_lib.research.studies.x_t_interval__mutmut_{n}": (
        "equivalent", "float('NAN') is NaN, as float('nan') is", 'float("NAN")') for n in (30, 35)},
    "course_lib.answers.x__tail__mutmut_4": (
        "equivalent", "a completion that is not a string is searched as 'XXXX' instead of '': neither holds an "
                      "answer in any format", 'else "XXXX"'),
    "course_lib.answers.x_extract_integer__mutmut_22": (
        "equivalent", "the branch is taken only when a marked answer is None or an integer, and one_answer gives a "
                      "value only when every mark agrees: a value it gives here is always an integer", "or True"),
    "course_lib.answers.x_is_correct__mutmut_58": (
        "accepted", "BBH's references are options (A)..(G): only a reference starting or ending with X would differ",
        'strip("XX()XX")'),
    **{f"course_lib.answers.x_normalize_number__mutmut_{n}": (
        "equivalent", "the whole and fraction parts are ASCII digits (the pattern matched them): no X to strip",
        change) for n, change in ((40, 'whole.lstrip("XX0XX")'), (48, 'fraction.rstrip("XX0XX")'),
                                  (53, '"").rstrip("XX0XX")'))},
    "course_lib.answers.x_normalize_number__mutmut_50": (
        "equivalent", "a digit string is emptied by lstrip('0') exactly when rstrip('0') empties it (all zeros): the "
                      "condition is the same", '"").lstrip("0")'),
    **{f"course_lib.prompts.x_prompt_ids__mutmut_{n}": (
        "accepted", "transformers 5's apply_chat_template defaults to tokenize=True and return_dict=True; they are "
                    "passed as TRL passes them, so another version's default cannot change the ids", change)
       for n, change in ((13, "add_generation_prompt=True, return_dict=True"), (14, "tokenize=True, **CHAT"))},
    **{f"course_lib.research.sweep.x_{function}__mutmut_{n}": (
        "accepted", "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI",
        "encoding=None") for function, n in (("_read_json", 2), ("_saved", 4))},
    **{f"course_lib.research.sweep.x_{function}__mutmut_{n}": ("equivalent", "'UTF-8' and 'utf-8' name the same codec", '"UTF-8"')
       for function, n in (("_read_json", 4), ("_saved", 6))},
    **{f"course_lib.research.sweep.x__saved__mutmut_{n}": (
        "accepted", "where the warning points (its stacklevel) is not what the run does", change)
       for n, change in ((23, 'point will run again", )'), (24, "stacklevel=3"))},
    # training/config.py
    **{f"{CONFIG}.x__help__mutmut_{n}": (
        "accepted", "_help runs only while CourseConfig's fields are defined, as the module is imported: mutmut's fork "
                    "server has imported it before a mutant is switched on, so no test session can see the change. "
                    "Outside mutmut the tests read what it makes: train's older spellings (`--steps`, "
                    "`--group-size`) and its help", change)
       for n, change in ((1, "(aliases) and False"), (2, "(aliases) or True"), (3, '"XXhelpXX": text, "aliases"'),
                         (4, '"HELP": text, "aliases"'), (5, '"XXaliasesXX"'), (6, '"ALIASES"'), (7, "list(None)"),
                         (8, 'else {"XXhelpXX": text}'), (9, 'else {"HELP": text}'))},
    # research/studies.py and sweep.py, newer functions
    **{f"course_lib.research.studies.x_assay_sensitivity__mutmut_{n}": (
        "equivalent", "the gains are numbers (a list or a column of floats), and an array of them is float without "
                      "dtype=float; SharedBaseline makes it float again", change)
       for n, change in ((6, "dtype=None"), (8, "list(reference_gains), )"))},
    "course_lib.research.studies.x__study_provenance__mutmut_4": (
        "accepted", "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI",
        "encoding=None"),
    "course_lib.research.studies.x__study_provenance__mutmut_6": (
        "equivalent", "'UTF-8' and 'utf-8' name the same codec", '"UTF-8"'),
    "course_lib.research.studies.x_check_results__mutmut_50": (
        "equivalent", "the two rows are duplicates in exactly these columns: either one shows the same setting",
        "table[c][same[1]]"),
    "course_lib.research.studies.x_check_results__mutmut_78": (
        "equivalent", "pandas reads astype(None) as float64, as astype(float): pd.to_numeric's numbers, the same",
        "numbers.astype(None)"),
    **{f"course_lib.research.studies.x_paired_verdicts__mutmut_{n}": (
        "equivalent", "only a held-out gain (gain.<split>, one dot) reads the shared variance: its last part after "
                      "a dot, its part after the first dot and part +1 are the same split name", change)
       for n, change in ((25, "rsplit('.', )[-1]"), (26, "split('.', 1)[-1]"), (28, "rsplit('.', 2)[-1]"),
                         (29, "rsplit('.', 1)[+1]"))},
    "course_lib.research.studies.x_paired_power__mutmut_10": (
        "equivalent", "statsmodels' TTestPower.power defaults to alternative='two-sided', the value given", "alpha=alpha, ))"),
    **{f"course_lib.research.sweep.x_parse_overrides__mutmut_{n}": (
        "equivalent", "every experiment parameter is an int, float, bool or str, and str() never fails: the fallback "
                      "word for another type is never used", change) for n, change in ((36, "types[key], None)"),
                                                                                     (37, ".get(types[key])"),
                                                                                     (38, ".get(types[key], )"))},
    **{f"course_lib.selection.x_pass_rate_counts__mutmut_{n}": (
        "equivalent", why, change) for n, why, change in (
        (16, "pandas reads astype(None) as float64, as astype(float): the same numbers", "astype(None).to_numpy()"),
        (30, "the right-answer counts as floats (2.0) label the same groups: reindexing by the whole numbers 0..K "
             "matches them, and the labels are made from that index", "round().astype(None)"))},
    f"{TRAINING}.x__train_grpo__mutmut_225": (
        "accepted", "the run's wall time is kept for reading, to a tenth of a second; hundredths change no finding",
        "start, 2)"),
}

# Survivors of the run resumed at bc71b28 (6 Dec 2026): triaged function by function, each checked with `mutmut show`
# (its text in the mutant's added line); the same format as above
STUDIES = "course_lib.research.studies"
SWEEP = "course_lib.research.sweep"
# group 1
_TRIAGED_CORE: dict[str, tuple[str, ...]] = {
    **{f"course_lib.difficulty.x__check_rows__mutmut_{n}": (
        "equivalent", "how many offending rows head() keeps does not matter: the loop raises on the first one",
        change) for n, change in ((10, "].head(None)"), (17, "].head(2)"), (61, "[~consistent].head(None)"),
                                  (63, "[~consistent].head(2)"), (74, "].head(None)"), (80, "].head(2)"))},
    "course_lib.difficulty.x__check_rows__mutmut_29": (
        "equivalent", "read_table checks first that the table has id, level and pass_rate, so {k, n_correct} is a "
                      "proper subset of its columns whenever it is a subset", '"n_correct"} < set('),
    "course_lib.difficulty.x__check_rows__mutmut_59": (
        "accepted", "only a pass rate exactly 1e-6 from n_correct / k (no value estimate writes; the tolerance only "
                    "absorbs CSV rounding) is read instead of refused", "abs() <= 1e-6"),
    **{f"course_lib.difficulty.x__check_rows__mutmut_{n}": (
        "accepted", "only a table sampled once per problem (k=1) is refused instead of read, and no such table is "
                    "written: estimate and pass_rates_at require k >= 2", change)
       for n, change in ((52, "(k > 1)"), (53, "(k >= 2)"))},
    # the stale entries for _files_fingerprint 42 and 43, again under their new names
    **{f"course_lib.difficulty.x__files_fingerprint__mutmut_{n}": (
        "equivalent", "a larger cap on the safetensors header read (32 MiB instead of 16): real headers are far "
                      "smaller, so the same bytes are read", change) for n, change in ((52, "2 << 24"), (53, "1 << 25"))},
    "course_lib.difficulty.x__files_fingerprint__mutmut_15": (
        "accepted", "only the placeholder hashed for a missing config file changes: the fingerprint still changes "
                    "when a config file appears, disappears or is edited, and is only compared with fingerprints "
                    "made by the same code (a cache entry made before would miss once)", 'b"XX-XX"'),
    **{f"course_lib.answers.x__fraction__mutmut_{n}": (
        "equivalent", "_FRACTION's groups match in pairs (1-2, 3-4, 5-6): a pair's second group is None exactly when "
                      "its first is", change) for n, change in ((24, "if pair[1] is not None"),
                                                                 (29, "match.group(6) is None"))},
    **{f"course_lib.answers.x__relation__mutmut_{n}": (
        "equivalent", "the first piece of split('=') is the same whatever the maxsplit", change)
       for n, change in ((12, 'split("=", )[0]'), (15, 'split("=", 2)[0]'))},
    "course_lib.answers.x__solved_text__mutmut_7": (
        "equivalent", "a text with whitespace between digits matches none of _FRACTION, _NUMERIC or _LINEAR (none "
                      "allows whitespace), nor does 'None': in_simplest_form and exact_value give False / None either "
                      "way", "return str(None), False"),
    "course_lib.answers.x__solved_text__mutmut_8": (
        "equivalent", "the flag only stops in_simplest_form trying _LINEAR, which a text with whitespace between "
                      "digits never matches; exact_value ignores it", "return str(answer), True"),
    "course_lib.answers.x_extract_integer__mutmut_29": (
        "equivalent", "after[:2] is empty exactly when after[:1] is", "if after[:2] and"),
    # the stale entries for charge_estimation 23 and 44 and pass_rate_counts 16 and 30, again under their new names
    "course_lib.selection.x_charge_estimation__mutmut_24": (
        "equivalent", "tokens per completion (1 or 2) does not enter the count of completions that is read",
        "estimation_cost(pool_size, k, 2)"),
    "course_lib.selection.x_charge_estimation__mutmut_45": (
        "accepted", "rounding to 10 rather than 9 decimals before the floor: both absorb floating-point error "
                    "(about 1e-15 here), and no budget or cost has a real 10th decimal", "cost, 10)"),
    **{f"course_lib.selection.x_pass_rate_counts__mutmut_{n}": (
        "equivalent", why, change) for n, why, change in (
        (26, "pandas reads astype(None) as float64, as astype(float): the same numbers", 'pass_rate"].astype(None)'),
        (65, "the right-answer counts as floats (2.0) label the same groups: reindexing by the whole numbers 0..K "
             "matches them, and the labels are made from that index", "round().astype(None)"))},
    "course_lib.selection.x_learnability_key__mutmut_8": (
        "accepted", "rounding p(1 - p) to 13 rather than 12 decimals: both absorb floating-point error (about 1e-17), "
                    "and distinct values j(K - j)/K^2 differ by at least 1/K^2, far above either", "(1 - p), 13)"),
    **{f"course_lib.selection.x__levels_band__mutmut_{n}": (
        "accepted", "only the stack frame the absent-levels warning is attributed to changes; its category and text "
                    "stay (and under mutmut the trampoline's extra frame shifts it anyway, so no test can pin it)",
        change) for n, change in ((58, 'others only", )'), (61, "stacklevel=4"))},
    "course_lib.answers.x_extract_integer__mutmut_50": (
        "equivalent", "no digit follows the last number _NUMBER finds (its \\d is re's \\d), so `[eE]\\d` never matches "
                      "the text after it; `13e2` is refused because its last number, 2, follows a letter",
        r"[ee]\d"),
}

# group 2
_TRIAGED_STUDIES_A: dict[str, tuple[str, ...]] = {
    **{f"{STUDIES}.x_paired_verdicts__mutmut_{n}": (
        "equivalent", "the part after the last dot is the same whether rsplit splits once, twice or at every dot",
        change) for n, change in ((44, 'rsplit(".", )[-1]'), (47, 'rsplit(".", 2)[-1]'))},
    f"{STUDIES}.x_paired_verdicts__mutmut_45": (
        "accepted", "differs only for a column with two dots (a per-level column, accuracy_after_by_level.test.1), "
                    "where either split reads a reference gain no results table holds ('gain.1' or 'gain.test.1') "
                    "and is refused in one line; every one-dot column has the same split", 'column.split(".", 1)[-1]'),
    f"{STUDIES}.x_paired_verdicts__mutmut_70": (
        "equivalent", "groupby sorts by default: dropping `sort=True` (or passing sort=None) leaves the groups sorted",
        "groupby(list(by), )"),
    **{f"{STUDIES}.x_paired_verdicts__mutmut_{n}": (
        "equivalent", "wide is read only for which arms it has: an arm holding any value in the group is a column with "
                      "or without the seed index (pivot_table drops an arm of blanks either way)", change)
       for n, change in ((74, "pivot_table(index=None, "), (77, "pivot_table(columns=arm"))},
    **{f"{STUDIES}.x_check_gains_agree__mutmut_{n}": (
        "accepted", "only a gain column with a second dot (gain.test.1) splits differently: `aggregate` writes "
                    "gain.<split> and pass_at_k_gain.<split> only, the splits being test and ood", change)
       for n, change in ((10, 'column.split(".", )'), (11, 'column.rsplit(".", 1)'), (13, 'column.split(".", 2)'))},
    f"{STUDIES}.x_check_gains_agree__mutmut_30": (
        "accepted", "text reaches it only in a measure column wholly of text (check_results refuses text among numbers "
                    "first): the original leaves that column unchecked, the mutant stops with a ValueError, and the "
                    "verdicts refuse text either way", "row.get(name), )"),
    f"{STUDIES}.x_check_gains_agree__mutmut_57": (
        "equivalent", "gain_disagreement reads an interval only when it is a list or tuple of two: '' and None both "
                      "mean none", 'interval = ""'),
    f"{STUDIES}.x_check_one_run_per_seed__mutmut_57": (
        "equivalent", "require_columns has just refused a table without the seed or any key column: both conditions "
                      "hold whenever this line runs", '"seed" in table.columns or set(keys)'),
    f"{STUDIES}.x_check_one_run_per_seed__mutmut_68": (
        "equivalent", "the rows are empty exactly when no row repeats its keys, and a repeated row's keys are those of "
                      "its first: the example dict is the same", "duplicated(keys, )"),
    **{f"{STUDIES}.x_check_ranges__mutmut_{n}": (
        "equivalent", "the part before the first dot is the same however many times the name is split", change)
       for n, change in ((8, 'column.split(".", )[0]'), (11, 'column.split(".", 2)[0]'))},
    f"{STUDIES}.x_check_ranges__mutmut_9": (
        "accepted", "only a column with a second dot whose first part is a RANGES measure (accuracy_after.test.1) "
                    "would lose its check: results tables hold none (per-level columns are "
                    "accuracy_after_by_level.<split>.<level>, which has no range either way)",
        'column.rsplit(".", 1)[0]'),
    f"{STUDIES}.x_check_ranges__mutmut_26": (
        "accepted", "text reaches it only in a column wholly of text (check_results refuses text among numbers "
                    "first): the original leaves that column unchecked, the mutant stops with a ValueError, and the "
                    "verdicts refuse text either way", "to_numeric(table[column], )"),
    f"{STUDIES}.x_check_results__mutmut_87": (
        "equivalent", "with no measure column, table[[]].notna().any(axis=1) is False on every row: no line is named "
                      "either way", "(measured) or True"),
    f"{STUDIES}.x_check_results__mutmut_137": (
        "equivalent", "pandas reads astype(None) as float64, as astype(float): pd.to_numeric's numbers, the same",
        "numbers.astype(None)"),
    f"{STUDIES}.x_row_disagreement__mutmut_46": (
        "accepted", "a cell exactly 1e-12 (relative) from its point's number is the only case this changes: the "
                    "tolerance absorbs float round-off, and a hand edit is far larger", ") < 1e-12"),
    f"{STUDIES}.x_row_disagreement__mutmut_47": (
        "accepted", "the tolerance shrinks only for numbers above 1, which are whole (steps, seed, prompts per step) "
                    "and read exactly from the CSV", "1e-12 / max("),
    f"{STUDIES}.x_row_disagreement__mutmut_53": (
        "accepted", "the tolerance doubles (to 2e-12) only for numbers below 2: float round-off stays inside either, a "
                    "hand edit outside", "max(2.0, "),
}

# group 3
_TRIAGED_STUDIES_B: dict[str, tuple[str, ...]] = {
    f"{STUDIES}.x_check_every_point_listed__mutmut_28": (
        "accepted", "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI",
        "encoding=None"),
    f"{STUDIES}.x_check_every_point_listed__mutmut_30": (
        "equivalent", "'UTF-8' and 'utf-8' name the same codec", '"UTF-8"'),
    f"{STUDIES}.x_detectable_difference__mutmut_41": (  # the entry named _20 was written for this change: _20 is now another
        "equivalent", "statsmodels' TTestPower.solve_power defaults to alternative='two-sided', the value given",
        "power=power, )"),
    **{name: ("equivalent", "groupby sorts by default: dropping `sort=True` leaves the groups sorted",
              "groupby(list(by), )")
       for name in (f"{STUDIES}.x_gain_by_strategy__mutmut_25", f"{STUDIES}.x_gain_verdicts__mutmut_29",
                    f"{STUDIES}.x_mechanism_table__mutmut_35", f"{STUDIES}.x_paired_difference__mutmut_29",
                    f"{STUDIES}.x_per_level_change__mutmut_16", f"{STUDIES}.x_per_level_verdicts__mutmut_28")},
    **{f"{STUDIES}.x_gain_verdicts__mutmut_{n}": (
        "equivalent", "the last part after a dot is the same however many splits rsplit makes", change)
       for n, change in ((19, ", )[-1]"), (22, ", 2)[-1]"))},
    f"{STUDIES}.x_gain_verdicts__mutmut_20": (
        "accepted", "the shared variance is read only for a gain.<split> column, and results tables' gains have one dot "
                    "(gain.test, gain.ood): the part after the first dot is the part after the last; only a made-up "
                    "gain.a.b column would differ", "column.split("),
    **{f"{STUDIES}.x_paired_by_seed__mutmut_{n}": (
        "equivalent", "the values are checked finite, the seeds present and the arms filtered to the two named before "
                      "the pivot, so no row or column of it is all NaN (a seed of one arm keeps one value): dropna has "
                      "nothing to drop and the one-arm seed is still named", change)
       for n, change in ((33, "dropna=None"), (37, "values=column, )"), (40, "dropna=True"))},
    f"{STUDIES}.x_per_level_verdicts__mutmut_34": (
        "accepted", "a group's rows share one base evaluation and so one K, read from the first row either way; the "
                    "change only adds a refusal where the second row's K is blank", "iloc[:2]"),
    f"{STUDIES}.x_rank_correlation__mutmut_48": (  # was _27
        "accepted", "ignoring every warning inside the bootstrap, not only the constant-input one: spearmanr on finite "
                    "numbers warns of nothing else", '"ignore", )'),
    f"{STUDIES}.x_seed_plan__mutmut_65": (
        "accepted", "a pilot's sd exactly equal to 1e-12 (a float) is the only case this changes; a spread of identical "
                    "differences is 0 or float noise far below it, and a real one far above", "sd >= 1e-12"),
    f"{STUDIES}.x_seeds_needed__mutmut_59": (  # was _28
        "accepted", "power exactly equal to the target (a continuous function of sd and difference) is the only case "
                    "this changes", ") > power"),
    **{f"{STUDIES}.x_t_interval__mutmut_{n}": (  # were _30 and _35
        "equivalent", "float('NAN') is NaN, as float('nan') is", 'float("NAN")') for n in (26, 31)},
    **{f"{STUDIES}.x_t_interval__mutmut_{n}": (
        "accepted", "an unrounded 95% bound exactly equal to 0 (mean minus t times the standard error, a float) is the "
                    "only case this changes; no seeds' values land there", change)
       for n, change in ((73, "low >= 0"), (75, "high <= 0"))},
}

# group 4
_TRIAGED_SWEEP: dict[str, tuple[str, ...]] = {
    # re-entered stale entries (same change, same reason, new numbers)
    f"{SWEEP}.x__saved__mutmut_6": (
        "accepted", "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI",
        "encoding=None"),
    f"{SWEEP}.x__saved__mutmut_8": ("equivalent", "'UTF-8' and 'utf-8' name the same codec", '"UTF-8"'),
    f"{SWEEP}.x_aggregate__mutmut_75": (
        "equivalent", "pandas reads to_csv(index=None) as no index, as index=False (the table's exact text is tested)",
        "to_csv(index=None)"),
    **{f"{SWEEP}.x_parse_overrides__mutmut_{n}": (
        "equivalent", "every experiment parameter is an int, float, bool or str, and str() never fails: the fallback "
                      "word for another type is never used", change) for n, change in ((66, "types[key], None)"),
                                                                                     (67, ".get(types[key])"),
                                                                                     (68, ".get(types[key], )"))},
    **{f"{SWEEP}.x_run_point_notebook__mutmut_{n}": (
        "accepted", "how much of a failed point's traceback is kept, and how its JSON record is indented: what a "
                    "reader sees, not what is read back (the last line, which the tests check, is kept)", change)
       for n, change in ((96, "indent=None"), (99, "dumps(record, default=str)"), (101, "indent=2"))},
    **{f"{SWEEP}.x_run_point_notebook__mutmut_{n}": (
        "accepted", "default=str is a safety net: every value of a point record comes from JSON (the grid, --set "
                    "values, the notebook's records read back from its JSON output) or is a string or number the "
                    "sweep makes, so no input reaches it", change)
       for n, change in ((97, "default=None)"), (100, "indent=1, )"))},
    # new
    **{f"{SWEEP}.x_check_nothing_dropped__mutmut_{n}": (
        "accepted", "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI", change)
       for n, change in ((6, "encoding=None"), (8, 'table.open(newline="")'))},
    **{f"{SWEEP}.x_check_nothing_dropped__mutmut_{n}": (
        "accepted", "without newline='' the csv module reads the same rows; only a line break inside a quoted field "
                    "would read as '\\n', and only the point column is read: a point's name (its values joined) holds "
                    "no line break", change) for n, change in ((7, "newline=None"),)},
    **{f"{SWEEP}.x_check_measures_agree__mutmut_{n}": (
        "equivalent", "a record without the gain key reads as None rather than {}: neither gives a split to check",
        change) for n, change in ((15, "record.get(gain_key, None)"), (17, "record.get(gain_key, )"))},
    f"{SWEEP}.x_check_measures_agree__mutmut_19": (
        "equivalent", "check_measures, the only caller, has already refused a gain or pass_at_k_gain that is not a "
                      "dict (both are in RANGES), so gains is always a dict here", "(isinstance(gains, dict)) or True"),
    f"{SWEEP}.x_check_measures_agree__mutmut_26": (
        "equivalent", "for a pass@k gain the interval goes only to gain_disagreement, which reads it only when it is "
                      "a list or tuple: '' and None both mean no interval", 'interval = ""'),
    **{f"{SWEEP}.x_check_measures_agree__mutmut_{n}": (
        "equivalent", "the default of record.get('gain_ci', ...) is never used: the isinstance test beside it has "
                      "already chosen None when gain_ci is absent", change)
       for n, change in ((35, 'get("gain_ci", None).get(split)'), (37, 'get("gain_ci", ).get(split)'))},
    **{f"{SWEEP}.x_check_same_files__mutmut_{n}": (
        "equivalent", "file_fingerprints reads every value that starts with 'jsonl:', whatever its key", change)
       for n, change in ((4, '"XXTASKXX"'), (5, '{"task"'))},
    **{f"{SWEEP}.x_holds_only_point_records__mutmut_{n}": (
        "equivalent", "a grid.json in the folder is an entry beside points/ (no lock file), so the names are not "
                      "['points'] and the answer is False all the same", change)
       for n, change in ((4, "XXgrid.jsonXX"), (5, "GRID.JSON"))},
    **{f"{SWEEP}.x_parse_where__mutmut_{n}": (
        "equivalent", "only the part before the first separator is kept ([0]): splitting once, twice or at every "
                      "separator gives the same first part", change)
       for n, change in ((19, "split(separator, )[0]"), (21, "split(separator, 2)[0]"))},
    f"{SWEEP}.x_trained_steps__mutmut_3": (
        "equivalent", "get_profile(None) raises CourseError (None names no profile), which is caught: cap 0, as "
                      "without a profile", "(profile) or True"),
    f"{SWEEP}.x_trained_steps__mutmut_6": (
        "equivalent", "a cap of None and a cap of 0 are both false: nothing is capped", "cap = None"),
    f"{SWEEP}.x_trained_steps__mutmut_16": (
        "equivalent", "STEPS=0 capped is min(0, cap) = 0 for any positive cap, the same as uncapped", "steps >= 0"),
    f"{SWEEP}.x_trained_steps__mutmut_17": (
        "equivalent", "STEPS=1 capped is min(1, cap) = 1 for any cap of at least one step, the same as uncapped",
        "steps > 1"),
}
# group 5: answers' survivors of the partial run reported at be4ac1d, each applied by hand (the others have tests)
ANSWERS = "course_lib.answers"
_TRIAGED_ANSWERS: dict[str, tuple[str, ...]] = {
    f"{ANSWERS}.x__a_trial__mutmut_14": (
        "accepted", "reading 41 rather than 40 characters before `the answer` differs only for a trial word starting "
                    "exactly 41 before it (19 or more spaces, colons or commas between them), which the longer window "
                    "would read as a trial too", "start - 41)"),
    f"{ANSWERS}.x__in_base__mutmut_24": (
        "equivalent", "a subscript of 37 makes int(digits, 37) raise ValueError, caught as None; the original's "
                      "fall-through gives None too: a text holding `_` is never a plain integer", "<= 37:"),
    **{f"{ANSWERS}.x__other_value__mutmut_{n}": (
        "equivalent", "the last piece of rsplit('=') is the text after the last `=` whatever the maxsplit", change)
       for n, change in ((8, 'rsplit("=", )[-1]'), (11, 'rsplit("=", 2)[-1]'))},
    f"{ANSWERS}.x__words_value__mutmut_42": (
        "accepted", "only runs of words no one writes as one number are read instead of left as words ('one hundred "
                    "one hundred' as 10100, 'thousand hundred' as 1100, 'twenty hundred' as 2000)",
        'unit") and current >= 100'),
    **{f"{ANSWERS}.x__words_value__mutmut_{n}": (
        "accepted", "current is exactly 100 before a `hundred` only in 'one hundred zero hundred' (a hundred plus "
                    "zero), which is then read as 10000 instead of left as words", change)
       for n, change in ((47, "current > 100"), (48, "current >= 101"))},
    **{f"{ANSWERS}.x__words_value__mutmut_{n}": (
        "equivalent", "the label after `hundred` is never compared with 'hundred': any label but '', 'unit', 'ten' "
                      "and 'scale' reads the same", change) for n, change in ((54, '"XXhundredXX"'), (55, '"HUNDRED"'))},
    f"{ANSWERS}.x_extract_integer__mutmut_16": (
        "equivalent", "after[:2] is empty exactly when after[:1] is", "if after[:2] and"),
    f"{ANSWERS}.x_extract_integer__mutmut_38": (
        "equivalent", "no digit follows the last number _NUMBER finds (its \\d is re's \\d), so `[eE]\\d` never matches "
                      "the text after it; `13E2` is refused because its last number, 2, follows a letter", r"[ee]\d"),
}
# sweep's and studies' survivors of the run resumed at 11a5174 (report at be4ac1d), triaged by hand at b168a3d, each
# under the name its change has in the code now (check_same_code, dataset_sha256 and run changed since: the report's
# name is in a comment); the stale entries they replace are removed above and below
_BAR = "the progress bar's settings: what the terminal shows while a sweep runs, nothing it records"
_WALL = "the wall time's rounding in provenance.json (0.1 s or finer): a record of how long, read by no result"
_HOLM_OF_ONE = ("Holm's adjustment of a family of one p-value (or of none) is that value times 1: only statsmodels' "
                "gc.collect runs besides")
_SIG = "codec names are read case-insensitively: 'UTF-8-SIG' is 'utf-8-sig'"
_TRIAGED_SWEEP_B: dict[str, tuple[str, ...]] = {
    f"{STUDIES}.x_equivalence_verdict__mutmut_55": (
        "equivalent", "inside and different are read only for their truth (verdict_in_words) and are not returned: "
                      "None says what False says", "inside = different = None"),
    f"{STUDIES}.x_holm_adjusted__mutmut_20": ("equivalent", _HOLM_OF_ONE, "(len(values) > 1) or True"),
    f"{STUDIES}.x_holm_adjusted__mutmut_29": ("equivalent", _HOLM_OF_ONE, "len(values) >= 1"),
    f"{STUDIES}.x_holm_adjusted__mutmut_27": (  # was _13 and _25
        "equivalent", "statsmodels' multipletests reads the method's name lower-cased: 'HOLM' is 'holm'", 'method="HOLM"'),
    f"{SWEEP}.x_check_nothing_dropped__mutmut_9": (
        "accepted", "without newline='' the csv module reads the same rows; only a line break inside a quoted field "
                    "would read as '\\n', and only the point column is read: a point's name (its values joined) holds "
                    "no line break", 'encoding="utf-8-sig", )'),
    f"{SWEEP}.x_check_nothing_dropped__mutmut_11": ("equivalent", _SIG, '"UTF-8-SIG"'),
    **{f"{SWEEP}.x_check_nothing_dropped__mutmut_{n}": (
        "accepted", "only the wording of the fix for an unreadable results.csv (its key words, 'cannot be read', are "
                    "tested)", change) for n, change in ((20, '"XXrestore it'), (21, '"RESTORE IT'))},
    **{f"{SWEEP}.x_check_results_unedited__mutmut_{n}": (
        "accepted", "only the wording of the fix every refusal of an edited results.csv ends with (their key phrases "
                    "are tested); the table is kept all the same", change)
       for n, change in ((14, "fix = None"), (15, 'fix = "XXcopy'), (16, 'fix = "COPY THE'))},
    **{f"{SWEEP}.x_dataset_sha256__mutmut_{n}": (  # the report's _7, _9 and _10
        "equivalent", "the files enter the dict in sorted(folder.iterdir()) order, which sorts one folder's paths by "
                      "name as sort_keys sorts the keys: the same JSON, and sha256", change)
       for n, change in ((15, "sort_keys=None"), (17, "json.dumps(files, )"), (18, "sort_keys=False"))},
    f"{SWEEP}.x_keeps_every_row__mutmut_10": ("equivalent", _SIG, '"UTF-8-SIG"'),
    f"{SWEEP}.x_keeps_every_row__mutmut_31": (
        "accepted", "the new table's header is in the set the old rows are compared with, so they are a proper subset "
                    "of it unless the old table has a row identical to its header (two tables pasted together), which "
                    "is then refused rather than remade", "} < set("),
    f"{SWEEP}.x_remembered_file_sha256__mutmut_3": (
        "accepted", "the resolved path only tells apart two files of the same inode number, size and nanosecond "
                    "times on two filesystems, which no test (and hardly a real folder) can make", "str(None)"),
    f"{SWEEP}.x_run__mutmut_80": (  # the report's _50
        "equivalent", "pandas reads to_csv(index=None) as no index, as index=False (the table's exact text is tested)",
        "to_csv(index=None)"),
    **{f"{SWEEP}.x_run__mutmut_{n}": ("accepted", _BAR, change)  # the report's _78 to _85
       for n, change in ((109, "total=None"), (110, "desc=None"), (111, "disable=None"), (112, "progress_bar(desc="),
                         (113, "len(todo), disable"), (114, 'done before)", )'), (115, "len(points) + len(todo)"),
                         (116, "disable=progress"))},
    **{f"{SWEEP}.x_run__mutmut_{n}": ("accepted", _WALL, change)  # the report's _114, _116 and _118
       for n, change in ((145, "start, None)"), (147, "start, )"), (149, "start, 2)"))},
    f"{SWEEP}.x_tasks_read__mutmut_10": (
        "equivalent", "'' is false as None is: a profile that cannot be read gives no default tasks either way",
        'profile = ""'),
}
TRIAGE.update({**_TRIAGED_CORE, **_TRIAGED_STUDIES_A, **_TRIAGED_STUDIES_B, **_TRIAGED_SWEEP, **_TRIAGED_ANSWERS,
               **_TRIAGED_SWEEP_B})

# Survivors of the complete run at 7a96066 (6 Dec 2026): triaged function by function by five helpers, each
# checked with `mutmut show` (its text in the mutant's added line); an entry here replaces an older one of the
# same name (mutmut renumbers a changed function's mutants)
_TRIAGED_AT_7A96066: dict[str, tuple[str, ...]] = {
    'course_lib.answers.x__mark_value__mutmut_11': (
        'equivalent',
        "a number without a unit is checked as 'XXXX' instead of '': neither is a word in _NO_UNIT, so "
        'the number is read the same',
        '"XXXX")'),
    'course_lib.answers.x__matches__mutmut_34': (
        'accepted',
        "BBH's references are options (A)..(G): only a reference starting or ending with X would differ",
        'strip("XX()XX")'),
    'course_lib.answers.x_boxed_answers__mutmut_49': (
        'accepted',
        'the hedge after a box is looked for in the next 120 characters, a heuristic bound: 121 differs '
        'only for a hedge whose number starts at the 121st character, as far-fetched either way',
        'position + 121'),
    'course_lib.answers.x_grader_fingerprint__mutmut_23': (
        'accepted',
        'the grader fingerprint only feeds the cache key (hashed again there): the joiner between the '
        "package versions and its length change the cache folder's name, while equal graders still share "
        'a folder and different ones do not',
        "'XX, XX'.join"),
    'course_lib.answers.x_grader_fingerprint__mutmut_24': (
        'accepted',
        'the grader fingerprint only feeds the cache key (hashed again there): the joiner between the '
        "package versions and its length change the cache folder's name, while equal graders still share "
        'a folder and different ones do not',
        'hexdigest()[:17]'),
    'course_lib.answers.x_grader_fingerprint__mutmut_6': (
        'equivalent',
        "importlib.metadata finds a distribution by its normalised name (case, '-', '_' and '.' alike): "
        'the upper-cased name reads the same version',
        '"LATEX2SYMPY2_EXTENDED"'),
    'course_lib.answers.x_grader_fingerprint__mutmut_8': (
        'equivalent',
        "importlib.metadata finds a distribution by its normalised name (case, '-', '_' and '.' alike): "
        'the upper-cased name reads the same version',
        '"SYMPY"'),
    'course_lib.answers.x_is_correct__mutmut_33': (
        'equivalent',
        'scanning the asked format again finds the answers already in `marked` (which holds no None, '
        'checked first): the set of answers compared is the same',
        'or True else []'),
    'course_lib.answers.x_normalize_number__mutmut_52': (
        'equivalent',
        "the whole and fraction parts are digits (the pattern's \\d matched them): no X to strip",
        'whole.lstrip("XX0XX")'),
    'course_lib.answers.x_normalize_number__mutmut_60': (
        'equivalent',
        "the whole and fraction parts are digits (the pattern's \\d matched them): no X to strip",
        'fraction.rstrip("XX0XX")'),
    'course_lib.answers.x_normalize_number__mutmut_62': (
        'equivalent',
        "a digit string is emptied by lstrip('0') exactly when rstrip('0') empties it (all zeros): the "
        'condition is the same',
        '"").lstrip("0")'),
    'course_lib.answers.x_normalize_number__mutmut_65': (
        'equivalent',
        "the whole and fraction parts are digits (the pattern's \\d matched them): no X to strip",
        '"").rstrip("XX0XX")'),
    'course_lib.difficulty.x_chunk_problem__mutmut_88': (
        'equivalent',
        'tokens is an int (checked above), so a row passing mean_length == tokens / k has a finite '
        'mean_length of the sign of tokens: a negative tokens is still caught by `not _finite_at_least_0`',
        'row["tokens"] < 0 and not _finite_at_least_0'),
    'course_lib.difficulty.x_estimate__mutmut_44': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"XXkXX"'),
    'course_lib.difficulty.x_estimate__mutmut_45': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"K"'),
    'course_lib.difficulty.x_estimate__mutmut_46': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"XXtemperatureXX"'),
    'course_lib.difficulty.x_estimate__mutmut_47': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"TEMPERATURE"'),
    'course_lib.difficulty.x_estimate__mutmut_48': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"XXmax_new_tokensXX"'),
    'course_lib.difficulty.x_estimate__mutmut_49': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"MAX_NEW_TOKENS"'),
    'course_lib.difficulty.x_estimate__mutmut_50': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"XXseedXX"'),
    'course_lib.difficulty.x_estimate__mutmut_51': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"SEED"'),
    'course_lib.difficulty.x_estimate__mutmut_52': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"XXchunk_sizeXX"'),
    'course_lib.difficulty.x_estimate__mutmut_53': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"CHUNK_SIZE"'),
    'course_lib.difficulty.x_estimate__mutmut_54': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"XXbackendXX"'),
    'course_lib.difficulty.x_estimate__mutmut_55': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"BACKEND"'),
    'course_lib.difficulty.x_estimate__mutmut_56': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"XXpromptsXX"'),
    'course_lib.difficulty.x_estimate__mutmut_57': (
        'accepted',
        "a sampling setting's name only feeds the cache key: renamed, equal settings still share a folder "
        "and different ones do not (only the folder's name changes)",
        '"PROMPTS"'),
    'course_lib.difficulty.x_model_fingerprint__mutmut_25': (
        'accepted',
        "the density of a large model's weight sample (a cost knob): its exact float64 sums still see any "
        'changed weight',
        'max(2, '),
    'course_lib.difficulty.x_model_fingerprint__mutmut_27': (
        'accepted',
        "the density of a large model's weight sample (a cost knob): its exact float64 sums still see any "
        'changed weight',
        '// 4097'),
    'course_lib.difficulty.x_model_fingerprint__mutmut_29': (
        'accepted',
        'reachable only on a GPU: the copy stays on the GPU and numpy() refuses it; on the CPU the copy '
        'is the same',
        'flat.to(None, torch.float32)'),
    'course_lib.difficulty.x_model_fingerprint__mutmut_31': (
        'accepted',
        'reachable only on a GPU: the copy stays on the GPU and numpy() refuses it; on the CPU the copy '
        'is the same',
        'flat.to(torch.float32)'),
    'course_lib.difficulty.x_read_chunk__mutmut_26': (
        'accepted',
        "which caller's line the bad-chunk warning names (its text is tested; under mutmut a trampoline "
        'sits between the frames, so no test can check the line there)',
        'sampling it again", )'),
    'course_lib.difficulty.x_read_chunk__mutmut_27': (
        'accepted',
        "which caller's line the bad-chunk warning names (its text is tested; under mutmut a trampoline "
        'sits between the frames, so no test can check the line there)',
        'stacklevel=4'),
    'course_lib.difficulty.x_read_table__mutmut_31': (
        'equivalent',
        'pandas reads UTF-8 when no encoding is given (`encoding or "utf-8"` in pandas.io.common), '
        'whatever the locale',
        'encoding=None'),
    'course_lib.difficulty.x_read_table__mutmut_36': (
        'equivalent',
        'pandas reads UTF-8 when no encoding is given (`encoding or "utf-8"` in pandas.io.common), '
        'whatever the locale',
        'str}, keep_default_na'),
    'course_lib.difficulty.x_read_table__mutmut_44': (
        'equivalent',
        "'UTF-8' and 'utf-8' name the same codec",
        '"UTF-8"'),
    'course_lib.research.studies.x_all_agree__mutmut_6': (
        'accepted',
        "the library calls it on finite_values' float arrays; a user's list of ints has zero spread "
        'exactly when the same values as floats do (short of integers beyond 2**53)',
        'dtype=None)) == 0'),
    'course_lib.research.studies.x_all_agree__mutmut_8': (
        'accepted',
        "the library calls it on finite_values' float arrays; a user's list of ints has zero spread "
        'exactly when the same values as floats do (short of integers beyond 2**53)',
        'list(values), )) == 0'),
    'course_lib.research.studies.x_beats_or_loses__mutmut_87': (
        'equivalent',
        "a middle of exactly 0 has returned 'is indistinguishable from' on the line before, so > 0 and >= "
        '0 agree (NaN fails both)',
        'middle >= 0'),
    'course_lib.research.studies.x_equivalence_verdict__mutmut_31': (
        'accepted',
        "a 90% bound exactly on the margin (a float equal to it) is the only case this changes; no test's "
        "numbers land there and no study's will",
        '-margin <= low90'),
    'course_lib.research.studies.x_equivalence_verdict__mutmut_32': (
        'accepted',
        "a 90% bound exactly on the margin (a float equal to it) is the only case this changes; no test's "
        "numbers land there and no study's will",
        'high90 <= margin'),
    'course_lib.research.studies.x_finite_values__mutmut_25': (
        'equivalent',
        'the message after `if odd else` is used only when the list of odd values is empty, when the '
        'check passes and no message is shown',
        'if odd else "XXXX")'),
    'course_lib.research.studies.x_gain_disagreement__mutmut_35': (
        'accepted',
        "only a gain exactly 1e-9 beyond its interval's bound (a float equal to the bound -/+ 1e-9) is "
        'read differently; the slack absorbs rounding and no real gain lands exactly on it',
        '- 1e-9 < gain'),
    'course_lib.research.studies.x_gain_disagreement__mutmut_36': (
        'accepted',
        "only a gain exactly 1e-9 beyond its interval's bound (a float equal to the bound -/+ 1e-9) is "
        'read differently; the slack absorbs rounding and no real gain lands exactly on it',
        'gain < interval[1]'),
    'course_lib.research.studies.x_holm_verdicts__mutmut_49': (
        'equivalent',
        'the message after `if odd else` is used only when the list of odd values is empty, when the '
        'check passes and no message is shown',
        'if odd else "XXXX")'),
    'course_lib.research.studies.x_side__mutmut_12': (
        'equivalent',
        'a row without `direction` falls through to the mean either way: None is not a number, and NaN is '
        "refused by pd.isna; float() reads 'NAN' as 'nan'",
        'float("NAN")'),
    'course_lib.research.studies.x_side__mutmut_4': (
        'equivalent',
        'a row without `direction` falls through to the mean either way: None is not a number, and NaN is '
        "refused by pd.isna; float() reads 'NAN' as 'nan'",
        '"direction", None)'),
    'course_lib.research.studies.xǁSharedBaselineǁ__init____mutmut_16': (
        'equivalent',
        "the values are numbers, and DescrStatsW's mean and variance are float64 for integers too",
        'dtype=None'),
    'course_lib.research.studies.xǁSharedBaselineǁ__init____mutmut_18': (
        'equivalent',
        "the values are numbers, and DescrStatsW's mean and variance are float64 for integers too",
        'asarray(values, )'),
    'course_lib.research.studies.xǁSharedBaselineǁ__init____mutmut_21': (
        'accepted',
        'np.ptp of no values raises; every caller (t_interval, equivalence_verdict, assay_sensitivity) '
        'has handled fewer than two values before it builds a SharedBaseline, so only a direct '
        'SharedBaseline([]) (no mean to give) would differ',
        '(values.size) or True'),
    'course_lib.research.studies.xǁSharedBaselineǁ__init____mutmut_24': (
        'equivalent',
        'the spread of no values only feeds the check below, which 0.0 and 1.0 both pass; it is not kept',
        'else 1.0'),
    'course_lib.research.sweep.x__ascii_number__mutmut_1': (
        'accepted',
        "_ascii_number runs only as sweep.py is imported (POINT_TYPES): mutmut's fork server has imported "
        'it before a mutant is switched on, so no test session can see the change. Outside mutmut the '
        'tests read what it makes: test_bad_inputs refuses --set STEPS=1_0, +4, Arabic-Indic digits, nan '
        'and inf, and the sweep tests parse ASCII numbers',
        'if re.fullmatch('),
    'course_lib.research.sweep.x__ascii_number__mutmut_2': (
        'accepted',
        "_ascii_number runs only as sweep.py is imported (POINT_TYPES): mutmut's fork server has imported "
        'it before a mutant is switched on, so no test session can see the change. Outside mutmut the '
        'tests read what it makes: test_bad_inputs refuses --set STEPS=1_0, +4, Arabic-Indic digits, nan '
        'and inf, and the sweep tests parse ASCII numbers',
        're.fullmatch(None'),
    'course_lib.research.sweep.x__ascii_number__mutmut_3': (
        'accepted',
        "_ascii_number runs only as sweep.py is imported (POINT_TYPES): mutmut's fork server has imported "
        'it before a mutant is switched on, so no test session can see the change. Outside mutmut the '
        'tests read what it makes: test_bad_inputs refuses --set STEPS=1_0, +4, Arabic-Indic digits, nan '
        'and inf, and the sweep tests parse ASCII numbers',
        '__name__], None)'),
    'course_lib.research.sweep.x__ascii_number__mutmut_4': (
        'accepted',
        "_ascii_number runs only as sweep.py is imported (POINT_TYPES): mutmut's fork server has imported "
        'it before a mutant is switched on, so no test session can see the change. Outside mutmut the '
        'tests read what it makes: test_bad_inputs refuses --set STEPS=1_0, +4, Arabic-Indic digits, nan '
        'and inf, and the sweep tests parse ASCII numbers',
        're.fullmatch(text.strip())'),
    'course_lib.research.sweep.x__ascii_number__mutmut_5': (
        'accepted',
        "_ascii_number runs only as sweep.py is imported (POINT_TYPES): mutmut's fork server has imported "
        'it before a mutant is switched on, so no test session can see the change. Outside mutmut the '
        'tests read what it makes: test_bad_inputs refuses --set STEPS=1_0, +4, Arabic-Indic digits, nan '
        'and inf, and the sweep tests parse ASCII numbers',
        '__name__], )'),
    'course_lib.research.sweep.x__ascii_number__mutmut_6': (
        'accepted',
        "_ascii_number runs only as sweep.py is imported (POINT_TYPES): mutmut's fork server has imported "
        'it before a mutant is switched on, so no test session can see the change. Outside mutmut the '
        'tests read what it makes: test_bad_inputs refuses --set STEPS=1_0, +4, Arabic-Indic digits, nan '
        'and inf, and the sweep tests parse ASCII numbers',
        'ValueError(None)'),
    'course_lib.research.sweep.x__ascii_number__mutmut_7': (
        'accepted',
        "_ascii_number runs only as sweep.py is imported (POINT_TYPES): mutmut's fork server has imported "
        'it before a mutant is switched on, so no test session can see the change. Outside mutmut the '
        'tests read what it makes: test_bad_inputs refuses --set STEPS=1_0, +4, Arabic-Indic digits, nan '
        'and inf, and the sweep tests parse ASCII numbers',
        'kind(None)'),
    'course_lib.research.sweep.x__saved__mutmut_38': (
        'accepted',
        'where the warning points (its stacklevel) is not what the run does',
        ')'),
    'course_lib.research.sweep.x__saved__mutmut_39': (
        'accepted',
        'where the warning points (its stacklevel) is not what the run does',
        'stacklevel=3'),
    'course_lib.research.sweep.x_is_seconds__mutmut_9': (
        'equivalent',
        "float() reads 'INF' as 'inf' (case-insensitively)",
        'float("INF")'),
    'course_lib.rewards.x_correctness_reward__mutmut_71': (
        'equivalent',
        'a completion whose check raised is scored `1.0 if ok else 0.0`: None scores 0.0 as False does',
        'ok = None'),
    'course_lib.selection.x__check_table__mutmut_51': (
        'accepted',
        "an empty id is refused all the same (''.splitlines() is [], not one line); only an id spelled "
        "'XXXX' would now be refused, which no pool holds",
        'text != "XXXX"'),
    'course_lib.training.config.xǁCourseConfigǁ__post_init____mutmut_105': (
        'equivalent',
        'max_steps is checked to be from 1 up just before (RANGES), so it is never 0 or below: `max_steps '
        '<= 0` and `max_steps < 0` are both False',
        'self.max_steps < 0'),
    'course_lib.training.config.xǁCourseConfigǁ__post_init____mutmut_49': (
        'equivalent',
        "lr_scheduler_type is a string (no .value) or transformers' SchedulerType, a str enum equal to "
        'its own value: read as itself it is in scheduler_names() exactly when its value is (and no '
        'invalid SchedulerType can be made), so the same settings pass',
        'getattr(None, "value"'),
    'course_lib.training.config.xǁCourseConfigǁ__post_init____mutmut_55': (
        'equivalent',
        "lr_scheduler_type is a string (no .value) or transformers' SchedulerType, a str enum equal to "
        'its own value: read as itself it is in scheduler_names() exactly when its value is (and no '
        'invalid SchedulerType can be made), so the same settings pass',
        '"XXvalueXX"'),
    'course_lib.training.config.xǁCourseConfigǁ__post_init____mutmut_56': (
        'equivalent',
        "lr_scheduler_type is a string (no .value) or transformers' SchedulerType, a str enum equal to "
        'its own value: read as itself it is in scheduler_names() exactly when its value is (and no '
        'invalid SchedulerType can be made), so the same settings pass',
        '"VALUE"'),
    'course_lib.training.x__check_logs_reach__mutmut_45': (
        'equivalent',
        'the text used when no step is missing is never shown (the check passes and its message is '
        'discarded)',
        "missing else 'XXXX'"),
    'course_lib.training.x__check_run_dir__mutmut_131': (
        'equivalent',
        "config_json is always run_record's (train_grpo's one call), which holds logging_steps (a "
        'CourseConfig field): the default of .get is never used',
        '"logging_steps", None)'),
    'course_lib.training.x__check_run_dir__mutmut_133': (
        'equivalent',
        "config_json is always run_record's (train_grpo's one call), which holds logging_steps (a "
        'CourseConfig field): the default of .get is never used',
        '"logging_steps", )'),
    'course_lib.training.x__check_run_dir__mutmut_136': (
        'equivalent',
        "config_json is always run_record's (train_grpo's one call), which holds logging_steps (a "
        'CourseConfig field): the default of .get is never used',
        '"logging_steps", 2)'),
    'course_lib.training.x__check_run_dir__mutmut_52': (
        'equivalent',
        'the previous config is the defaults updated with the saved one, so every memory-only field is '
        'there to pop',
        'pop(name, )'),
    'course_lib.training.x__from_train_config__mutmut_3': (
        'equivalent',
        "TrainConfig's only dict-valued setting was `extra` (its other fields are numbers, strings, bools "
        'and the list lora_target_modules), so `or isinstance(value, dict)` selects the same keys',
        'if key == "extra" or isinstance(value, dict):'),
    'course_lib.training.x__log_rows__mutmut_1': (
        'equivalent',
        "every caller (read_jsonl_log, _truncate_after, the resume's metrics and ledger reads) passes "
        'torn_end_ok=True, so the default is never used',
        'torn_end_ok: bool = True'),
    'course_lib.training.x__log_rows__mutmut_29': (
        'equivalent',
        "a line that does not parse is refused by the check below for not being a dict: '' fails it as "
        'None does',
        'row = ""'),
    'course_lib.training.x__log_rows__mutmut_3': (
        'accepted',
        "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI",
        'encoding=None'),
    'course_lib.training.x__log_rows__mutmut_5': (
        'accepted',
        "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI",
        'read_text(errors="replace")'),
    'course_lib.training.x__log_rows__mutmut_8': (
        'equivalent',
        "'UTF-8' and 'utf-8' name the same codec",
        '"UTF-8"'),
    'course_lib.training.x__prepare_run_dir__mutmut_22': (
        'accepted',
        'the stack level only chooses which line a warning names as its source',
        '\'the start\'}", )'),
    'course_lib.training.x__prepare_run_dir__mutmut_27': (
        'accepted',
        'the stack level only chooses which line a warning names as its source',
        'stacklevel=4'),
    'course_lib.training.x__seconds_before__mutmut_32': (
        'equivalent',
        "the default of row.get('step_time', ...) is never used: only rows whose step_time is a number "
        'are summed',
        'row.get("step_time", None) for row'),
    'course_lib.training.x__seconds_before__mutmut_34': (
        'equivalent',
        "the default of row.get('step_time', ...) is never used: only rows whose step_time is a number "
        'are summed',
        'row.get("step_time", ) for row'),
    'course_lib.training.x__seconds_before__mutmut_37': (
        'equivalent',
        "the default of row.get('step_time', ...) is never used: only rows whose step_time is a number "
        'are summed',
        'row.get("step_time", 1.0) for row'),
    'course_lib.training.x__train_grpo__mutmut_114': (
        'accepted',
        'main_process_first waits for the main process when there are several; with one it only runs the '
        'block (`local` matters across nodes, `desc` is a log label)',
        'local=None'),
    'course_lib.training.x__train_grpo__mutmut_115': (
        'accepted',
        'main_process_first waits for the main process when there are several; with one it only runs the '
        'block (`local` matters across nodes, `desc` is a log label)',
        'desc=None'),
    'course_lib.training.x__train_grpo__mutmut_116': (
        'accepted',
        'main_process_first waits for the main process when there are several; with one it only runs the '
        'block (`local` matters across nodes, `desc` is a log label)',
        'main_process_first(desc='),
    'course_lib.training.x__train_grpo__mutmut_117': (
        'accepted',
        'main_process_first waits for the main process when there are several; with one it only runs the '
        'block (`local` matters across nodes, `desc` is a log label)',
        'local=False, )'),
    'course_lib.training.x__train_grpo__mutmut_118': (
        'accepted',
        'main_process_first waits for the main process when there are several; with one it only runs the '
        'block (`local` matters across nodes, `desc` is a log label)',
        'local=True'),
    'course_lib.training.x__train_grpo__mutmut_119': (
        'accepted',
        'main_process_first waits for the main process when there are several; with one it only runs the '
        'block (`local` matters across nodes, `desc` is a log label)',
        'XXpreparing'),
    'course_lib.training.x__train_grpo__mutmut_120': (
        'accepted',
        'main_process_first waits for the main process when there are several; with one it only runs the '
        'block (`local` matters across nodes, `desc` is a log label)',
        'PREPARING'),
    'course_lib.training.x__train_grpo__mutmut_202': (
        'accepted',
        "PEFT sets attributes on the LoraConfig it is given, which a shallow copy keeps from the caller's "
        'as a deep one does; it changes none of its containers in place (checked with peft 0.21.2: '
        "course_lora()'s fields are unchanged after get_peft_model on a copy.copy of it)",
        'copy.copy(peft_config)'),
    'course_lib.training.x__train_grpo__mutmut_91': (
        'accepted',
        'whether load_model places the model on the device: on a CPU it is there either way; on a GPU the '
        'Trainer moves it',
        'place=None'),
    'course_lib.training.x__train_grpo__mutmut_93': (
        'accepted',
        'whether load_model places the model on the device: on a CPU it is there either way; on a GPU the '
        'Trainer moves it',
        'load_model(model_name, )'),
    'course_lib.training.x__train_grpo__mutmut_94': (
        'accepted',
        'whether load_model places the model on the device: on a CPU it is there either way; on a GPU the '
        'Trainer moves it',
        'place=True'),
    'course_lib.training.x__trainer_callback__mutmut_1': (
        'equivalent',
        'its one caller (_train_grpo) always passes seconds_before, so the default is never used',
        'seconds_before: float = 1.0'),
    'course_lib.training.x__trainer_callback__mutmut_2': (
        'equivalent',
        'the Trainer calls on_train_begin, which sets self.started, before any on_log: the class '
        "attribute's value is never read",
        'started = None'),
    'course_lib.training.x_sort_target_modules__mutmut_13': (
        'accepted',
        'PEFT writes adapter_config.json with sort_keys=True (peft/config.py), so the keys read back are '
        'already sorted and are written in that order with or without sort_keys; only a hand-written file '
        'with unsorted keys would differ, in key order alone',
        'sort_keys=None'),
    'course_lib.training.x_sort_target_modules__mutmut_16': (
        'accepted',
        'PEFT writes adapter_config.json with sort_keys=True (peft/config.py), so the keys read back are '
        'already sorted and are written in that order with or without sort_keys; only a hand-written file '
        'with unsorted keys would differ, in key order alone',
        'indent=2, ))'),
    'course_lib.training.x_sort_target_modules__mutmut_18': (
        'accepted',
        'PEFT writes adapter_config.json with sort_keys=True (peft/config.py), so the keys read back are '
        'already sorted and are written in that order with or without sort_keys; only a hand-written file '
        'with unsorted keys would differ, in key order alone',
        'sort_keys=False'),
    'course_lib.training.x_train_grpo__mutmut_61': (
        'accepted',
        'the stack level only chooses which line a warning names as its source',
        '                          )'),
    'course_lib.training.x_train_grpo__mutmut_62': (
        'accepted',
        'the stack level only chooses which line a warning names as its source',
        'stacklevel=3'),
}
TRIAGE.update(_TRIAGED_AT_7A96066)

# Survivors of the run resumed at 1cf188c (the 1,136 mutants of functions changed after 36ee9f5), triaged by helpers
# function by function; the same change under a stale entry's old name was written again under its new one.
_TRIAGED_AT_1CF188C: dict[str, tuple[str, ...]] = {
    'course_lib.difficulty.x__check_rows__mutmut_84': (
        'equivalent',
        'how many offending rows head() keeps does not matter: the loop raises on the first one',
        '].head(None)'),
    'course_lib.difficulty.x__check_rows__mutmut_90': (
        'equivalent',
        'how many offending rows head() keeps does not matter: the loop raises on the first one',
        '].head(2)'),
    'course_lib.difficulty.x__check_samples__mutmut_64': (
        'equivalent',
        'how many offending rows head() keeps does not matter: the loop raises on the first one',
        '[~agrees].head(None)'),
    'course_lib.difficulty.x__check_samples__mutmut_66': (
        'equivalent',
        'how many offending rows head() keeps does not matter: the loop raises on the first one',
        '[~agrees].head(2)'),
    'course_lib.grpo.x_group_advantages__mutmut_30': (
        'equivalent',
        "float() reads 'INF' as 'inf' (case-insensitively)",
        'float("INF")'),
    'course_lib.grpo.x_informative_share__mutmut_11': (
        'accepted',
        'dead_group_probability converts the rates with dtype=float itself, so numbers, numeric strings '
        'and nullable columns give the same share and the same refusals; only the repr of a refused input '
        'in the message differs ([0.5, None] is shown as an object array, not [0.5, nan])',
        'pass_rates, )'),
    'course_lib.grpo.x_informative_share__mutmut_9': (
        'accepted',
        'dead_group_probability converts the rates with dtype=float itself, so numbers, numeric strings '
        'and nullable columns give the same share and the same refusals; only the repr of a refused input '
        'in the message differs ([0.5, None] is shown as an object array, not [0.5, nan])',
        'dtype=None'),
    'course_lib.research.studies.x_beats_or_loses__mutmut_96': (
        'equivalent',
        "a middle of exactly 0 has returned 'is indistinguishable from' on the line before, so > 0 and >= "
        '0 agree (NaN fails both)',
        'middle >= 0'),
    'course_lib.research.studies.x_gain_verdicts__mutmut_19': (
        'equivalent',
        'groupby sorts by default: dropping `sort=True` leaves the groups sorted',
        'groupby(list(by), )'),
    'course_lib.research.studies.x_mechanism_table__mutmut_34': (
        'equivalent',
        'groupby sorts by default: dropping `sort=True` leaves the groups sorted',
        'groupby(list(by), )'),
    'course_lib.research.studies.x_mechanism_table__mutmut_42': (
        'equivalent',
        'how many blank-beside-values cells head() keeps does not matter: the loop raises on the first '
        'one, the same first one in every case',
        '].head(None)'),
    'course_lib.research.studies.x_mechanism_table__mutmut_45': (
        'equivalent',
        'how many blank-beside-values cells head() keeps does not matter: the loop raises on the first '
        'one, the same first one in every case',
        '].head(2)'),
    'course_lib.research.studies.x_shared_base_variance__mutmut_5': (
        'equivalent',
        'the part after the last dot is the same whether rsplit splits once or at every dot',
        "rsplit('.', )[-1]"),
    'course_lib.research.studies.x_shared_base_variance__mutmut_6': (
        'accepted',
        'the part after the first dot differs from the part after the last only for a column with two '
        'dots; a gain.a.b column is in no results table (aggregate writes gain.<split> and '
        'pass_at_k_gain.<split>), and even then only a base_variance.a.b or base_variance.b column would '
        'be read',
        "column.split('.', 1)[-1]"),
    'course_lib.research.studies.x_shared_base_variance__mutmut_8': (
        'equivalent',
        'the part after the last dot is the same whether rsplit splits once or twice',
        "rsplit('.', 2)[-1]"),
    'course_lib.training.x_load_trained__mutmut_94': (
        'accepted',
        "`.to(None)` leaves a full fine-tune where it loaded, the CPU, which is also the base model's "
        "device without a GPU (the tests' and the mutation run's case); on a GPU it would stay on the CPU "
        'beside a cuda base, which only a test on a GPU can see',
        '.to(None)'),
    **{f"course_lib.research.sweep.x_record_problem__mutmut_{n}": (
        "accepted", "only how many characters of a foreign record's value the refusal quotes (a cut for long text)",
        cut) for n, cut in ((19, "[:81]"), (55, "[:41]"))},
    "course_lib.research.studies.x_detectable_difference__mutmut_43": (
        "equivalent", "statsmodels' TTestPower.solve_power defaults to alternative='two-sided'", "power=power, )"),
    "course_lib.selection.x_pass_rate_counts__mutmut_80": (
        "equivalent", "the counts keyed by 0.0, 1.0, ... (floats) match the whole numbers of the full index when "
        "reindexed (equal hashes), and the output's `right` column comes from that index", "round().astype(None)"),
    "course_lib.selection.x_pass_rate_counts__mutmut_41": (
        "equivalent", "numpy reads dtype None as float64, so astype(None) is astype(float)", "astype(None)"),
    "course_lib.selection.x_pass_rate_counts__mutmut_65": (
        "accepted", "only the wording of the refusal's fix for a blank grouping cell (its key words are tested)",
        "XXdrop out"),
    "course_lib.research.studies.x_rank_correlation__mutmut_61": (
        "equivalent", "spearmanr raises no warning there but ConstantInputWarning (finite values are checked first), so "
        "ignoring every warning in that block hides nothing more", 'simplefilter("ignore", )'),
    **{f"course_lib.research.studies.x_rank_correlation__mutmut_{n}": (
        "accepted", "where the ties warning starts (about 5% of resamples left out) is a judgement: a threshold one "
        "resample lower or higher says the same", change) for n, change in ((80, "tied >= resamples // 20"),
                                                                             (81, "resamples / 20"), (82, "// 21"))},
    "course_lib.research.studies.x_rank_correlation__mutmut_89": (
        "accepted", "the stack level only chooses which caller's line the warning names (outside the library either way)",
        "stacklevel=3"),
}
TRIAGE.update(_TRIAGED_AT_1CF188C)

# Survivors of the run resumed at 867292e (the code changed on 6 Dec 2026, evening), triaged by hand
_SWEEP_COUNTS = "course_lib.research.sweep.x__check_counts_match_run__mutmut_"
_TRIAGED_AT_867292E: dict[str, tuple[str, ...]] = {
    "course_lib.answers.x__mark_value__mutmut_3": (
        "equivalent", "the number pattern allows spaces after the number, so stripping them on the left instead of "
        "the right reads the same mark", ".lstrip()"),
    "course_lib.answers.x__mark_value__mutmut_20": (
        "equivalent", "`_changes_the_number` of an empty word and of 'XXXX' are both False (neither is listed)",
        '"XXXX"'),
    "course_lib.research.studies.x_detectable_difference__mutmut_33": (
        "equivalent", "statsmodels' TTestPower.solve_power defaults to alternative='two-sided'", "power=power, )"),
    **{f"{_SWEEP_COUNTS}{n}": (
        "message", "`_read_json`'s second argument only names the file in its error message", change)
       for n, change in ((12, "summary.json\", None)"), (18, "XXthe run's summaryXX"), (19, "THE RUN'S SUMMARY"),
                         (22, "run_config.json\", None)"), (28, "XXthe run's settingsXX"),
                         (29, "THE RUN'S SETTINGS"))},
    **{f"course_lib.research.sweep.x__saved__mutmut_{n}": (
        "equivalent", "Python reads UTF-8 when no encoding is given in the course's environment (UTF-8 locale, as "
        "the Makefile and CI set), and 'UTF-8' and 'utf-8' name the same codec", change)
       for n, change in ((7, "encoding=None"), (9, '"UTF-8"'))},
    "course_lib.research.sweep.x_aggregate__mutmut_85": (
        "equivalent", "pandas' to_csv treats index=None as False (no index column)", "index=None"),
    **{f"course_lib.research.sweep.x_collect__mutmut_{n}": (
        "message", "the folder is passed only to name it in the refusal's message", change)
       for n, change in ((49, "check_same_models(None"), (56, "check_same_files(None"))},
    **{f"course_lib.research.sweep.x_saved_records__mutmut_{n}": (
        "equivalent", "None and False read the same where `set_aside` is only tested for truth", change)
       for n, change in ((12, "done_record(out, point, set_aside=None)"), (20, '"failed", set_aside=None)'))},
}
TRIAGE.update(_TRIAGED_AT_867292E)
_TRIAGED_AT_2D8B21A: dict[str, tuple[str, ...]] = {  # the run resumed at 2d8b21a (math-verify's CPU-time limit)
    "course_lib.answers.x__limited__mutmut_11": (
        "equivalent", "a timer left at 1 s is reset by the next step's `_limited` and cleared by `_math_verify`'s "
        "own `finally` before any other code runs", "signal.ITIMER_VIRTUAL, 1)"),
    **{f"course_lib.answers.x__math_verify__mutmut_{n}": (
        "equivalent", "the warm-up only makes math-verify's lazy imports before any limit: what it parses, its "
        "backstop, or warming up again on every call change no grade", change)
       for n, change in ((2, "_WARM = None"), (3, "bool(None)"), (5, "parsing_timeout=None"), (7, 'parse("$1$", )'),
                         (8, '"XX$1$XX"'))},
    "course_lib.training.config.x_check_settings_finite__mutmut_7": (
        "equivalent", "every field of the dataclass is an attribute of its instance: getattr's default is never used",
        "getattr(config, item.name, )"),
}
TRIAGE.update(_TRIAGED_AT_2D8B21A)

# Survivors of the run resumed at 4b4b9b7 (report b20804b: 120 unexplained), triaged by hand, each under the name its
# change has in the code now (mutmut numbers a function's mutants in order, so an edit since the run renumbers them:
# the report's name is in a comment where it differs, e.g. answers' _mark_value and is_correct changed in round 23's
# mends, studies' check_rows_match_records in round 24's, and sweep's run_point is run_point_notebook now)
_DIFFICULTY_KEY = ("accepted", "a sampling setting's name only feeds the cache key: renamed, equal settings still share a "
                               "folder and different ones do not (only the folder's name changes)")
_TRIAGED_AT_4B4B9B7: dict[str, tuple[str, ...]] = {
    # answers.py
    "course_lib.answers.x__changes_the_number__mutmut_14": (
        "equivalent", "a word's first character is looked for among the degree and currency signs: the X added to that "
        "string is a letter, which `isalpha()` has let through already", 'in "XX'),
    **{f"course_lib.answers.x__mark_value__mutmut_{n}": (
        "equivalent", "a mark without a label or a unit is read as if it had the word 'XXXX': _changes_the_number('XXXX') "
        "is False as for '' (not listed, no scale letter, starts with a letter, no exponent) and 'xxxx' is no hedging "
        "label, so the same number is read", change)
       for n, change in ((28, 'stated.group(1) or "XXXX")'),  # the report's _36
                         (37, 'stated.group(3) or "XXXX")'),  # the report's _30
                         (63, '_changes_the_number(letter.group(1) or "XXXX")'),  # the report's _57
                         (68, '(letter.group(1) or "XXXX").lower()'))},  # new beside _63 since (its label check)
    **{f"course_lib.answers.x_in_simplest_form__mutmut_{n}": (
        "equivalent", "a fraction with numerator 0 is never in simplest form either way: gcd(0, d) = d, which is above "
                      "1 whenever the denominator passes `denominator > 1`", change)
       for n, change in ((11, "numerator <= 0"), (12, "numerator < 1"))},  # the report's _10 and _11
    **{f"course_lib.answers.x_is_correct__mutmut_{n}": (  # the report's _72 and _73
        "equivalent", "asked in the option format, the options stated are read again beside the ones `marked` holds: "
                      "the same option_answers (stated_only only drops options merely mentioned, and its [None] has "
                      "already returned False as `marked`), so the answers compared are the same", change)
       for n, change in ((84, 'answer_format != "XXoptionXX"'), (85, 'answer_format != "OPTION"'))},
    # difficulty.py: estimate's settings keys (the entries above under these names were one mutant off)
    **{f"course_lib.difficulty.x_estimate__mutmut_{n}": (*_DIFFICULTY_KEY, change)
       for n, change in ((43, '"XXkXX"'), (44, '"K"'), (45, '"XXtemperatureXX"'), (46, '"TEMPERATURE"'),
                         (47, '"XXmax_new_tokensXX"'), (48, '"MAX_NEW_TOKENS"'), (49, '"XXseedXX"'), (50, '"SEED"'),
                         (51, '"XXchunk_sizeXX"'), (52, '"CHUNK_SIZE"'), (53, '"XXbackendXX"'), (54, '"BACKEND"'),
                         (55, '"XXpromptsXX"'), (56, '"PROMPTS"'))},
    # training/config.py
    f"{CONFIG}.x_check_reward_weights__mutmut_6": (
        "accepted", "differs only for reward_weights that are no list or tuple and hold a NaN or inf (an array, a dict): "
                    "both refuse them naming reward_weights, the mutant as not finite, the original as not a list of "
                    "numbers (and CourseConfig's check_settings_finite refuses them first, as not finite)",
        "weights is None and not isinstance"),
    f"{CONFIG}.x_check_reward_weights__mutmut_22": (
        "equivalent", "is_setting_number reads `integer` for its truth: None, like False, allows floats",
        "is_setting_number(w, integer=None)"),
    f"{CONFIG}.xǁCourseConfigǁ__post_init____mutmut_26": (
        "equivalent", "is_setting_number reads `integer` for its truth: None, like False, allows floats",
        "is_setting_number(value, integer=None)"),
    f"{CONFIG}.xǁCourseConfigǁ__post_init____mutmut_106": (  # the entry _105 above, one mutant off
        "equivalent", "max_steps is checked to be from 1 up just before (RANGES), so it is never 0 or below: `max_steps "
                      "<= 0` and `max_steps < 0` are both False", "self.max_steps < 0"),
    **{f"{CONFIG}.xǁCourseConfigǁ__post_init____mutmut_{n}": (  # the entries _49, _55 and _56 above, one mutant off
        "equivalent", "lr_scheduler_type is a string (no .value) or transformers' SchedulerType, a str enum equal to its "
                      "own value: read as itself it is in scheduler_names() exactly when its value is (and no invalid "
                      "SchedulerType can be made), so the same settings pass", change)
       for n, change in ((50, 'getattr(None, "value"'), (56, '"XXvalueXX"'), (57, '"VALUE"'))},
    # training/__init__.py: _train_grpo's entries above, renumbered
    **{f"{TRAINING}.x__train_grpo__mutmut_{n}": (
        "accepted", PLACES_MODEL, change)
       for n, change in ((87, "place=None"), (89, "load_model(model_name, )"), (90, "place=True"))},
    **{f"{TRAINING}.x__train_grpo__mutmut_{n}": (
        "accepted", MAIN_PROCESS_FIRST, change)
       for n, change in ((110, "local=None"), (111, "desc=None"), (112, "main_process_first(desc="),
                         (113, "local=False, )"), (114, "local=True"), (115, "XXpreparing"), (116, "PREPARING"))},
    f"{TRAINING}.x__train_grpo__mutmut_198": (
        "accepted", "PEFT sets attributes on the LoraConfig it is given, which a shallow copy keeps from the caller's as "
                    "a deep one does; it changes none of its containers in place (checked with peft 0.21.2: "
                    "course_lora()'s fields are unchanged after get_peft_model on a copy.copy of it)",
        "copy.copy(peft_config)"),
    # research/studies.py
    **{f"{STUDIES}.x_all_agree__mutmut_{n}": (
        "accepted", "every caller in the library passes finite_values' float array, where dtype=float changes nothing; a "
                    "user's list of ints agrees or not as the same numbers as floats do (within the same rounding); "
                    "only bools or numeric strings, which no caller passes, would differ (a TypeError, not read)", change)
       for n, change in ((4, "list(values), dtype=None)"), (6, "asarray(list(values), )"))},
    f"{STUDIES}.x_all_agree__mutmut_15": (
        "accepted", "the tolerance doubles (to 2e-12) only for values below 2 in size: float round-off there (about "
                    "1e-16) stays inside either, a difference between seeds far outside", "max(2.0, "),
    f"{STUDIES}.x_all_agree__mutmut_21": (
        "accepted", "a spread exactly equal to the tolerance (1e-12 times the largest value, a float) is the only case "
                    "this changes", "np.ptp(values) < rounding"),
    f"{STUDIES}.x_check_one_run_per_seed__mutmut_79": (
        "equivalent", "require_columns has just refused a table without the seed or any key column: both conditions "
                      "hold whenever this line runs", '"seed" in table.columns or set(keys)'),
    f"{STUDIES}.x_check_one_run_per_seed__mutmut_90": (
        "accepted", "a repeated run is refused either way, in the same words; keep='first' only changes which repeat the "
                    "message shows as its example (the first second occurrence, not the first of the repeated rows)",
        "duplicated(keys, )"),
    f"{STUDIES}.x_check_rows_match_records__mutmut_32": (
        "accepted", "without encoding='utf-8' Python reads with the locale's encoding, UTF-8 here and in CI",
        "encoding=None"),
    f"{STUDIES}.x_check_rows_match_records__mutmut_35": (
        "equivalent", "'UTF-8' and 'utf-8' name the same codec", '"UTF-8"'),
    **{f"{STUDIES}.x_check_rows_match_records__mutmut_{n}": (  # the report's _38 and _40
        "equivalent", "the text read is to_csv(index=False)'s, every line with as many fields as its header: pandas "
                      "infers no index column from it, with index_col=None or without it as with False", change)
       for n, change in ((47, "index_col=None)"), (49, "to_csv(index=False)), )"))},
    f"{STUDIES}.x_check_rows_match_records__mutmut_51": (  # the report's _42
        "equivalent", "pandas reads to_csv(index=None) as no index, as index=False (the same text)",
        "to_csv(index=None)), index_col=False"),
    **{f"{STUDIES}.x_check_rows_match_records__mutmut_{n}": (  # the report's _72, _75, _83, _89, _93 and _94
        "equivalent", "the two sides zipped always match in length: `made` is taken to the table's own points "
                      "(.loc[table['point']]) and columns, so zip's strict check never fires", change)
       for n, change in ((92, "strict=None), start=2"), (95, "made.itertuples(index=False), ), start=2"),
                         (103, "strict=False), start=2"), (109, "row, expected, strict=None)"),
                         (113, "row, expected, )"), (114, "row, expected, strict=False)"))},
    **{f"{STUDIES}.x_check_rows_match_records__mutmut_{n}": (  # the report's _76 and _81
        "equivalent", "itertuples reads `index` for its truth: None, like False, leaves the index out", change)
       for n, change in ((96, 'drop(columns="point").itertuples(index=None)'), (101, "made.itertuples(index=None)"))},
    **{f"{STUDIES}.x_paired_verdicts__mutmut_{n}": (  # the entries _44 and _47 above, renumbered
        "equivalent", "the part after the last dot is the same whether rsplit splits once, twice or at every dot",
        change) for n, change in ((46, 'rsplit(".", )[-1]'), (49, 'rsplit(".", 2)[-1]'))},
    f"{STUDIES}.x_paired_verdicts__mutmut_47": (  # the entry _45 above, renumbered
        "accepted", "differs only for a column with two dots (a per-level column, accuracy_after_by_level.test.1), "
                    "where either split reads a reference gain no results table holds ('gain.1' or 'gain.test.1') "
                    "and is refused in one line; every one-dot column has the same split", 'column.split(".", 1)[-1]'),
    f"{STUDIES}.x_paired_verdicts__mutmut_72": (
        "equivalent", "groupby sorts by default: dropping `sort=True` leaves the groups sorted", "groupby(list(by), )"),
    **{f"{STUDIES}.x_paired_verdicts__mutmut_{n}": (  # the entries _74 and _77 above, renumbered
        "equivalent", "wide is read only for which arms it has: an arm holding any value in the group is a column with "
                      "or without the seed index (pivot_table drops an arm of blanks either way)", change)
       for n, change in ((76, "pivot_table(index=None, "), (79, "pivot_table(columns=arm"))},
    # research/sweep.py
    "course_lib.research.sweep.x_aggregate__mutmut_63": (  # the report's _64
        "equivalent", "pandas reads to_csv(index=None) as no index, as index=False (the same text)", "to_csv(index=None)"),
    **{f"course_lib.research.sweep.x_run_point_notebook__mutmut_{n}": (  # the report's x_run_point (renamed since)
        "accepted", "how much of a failed point's traceback is kept, and how its JSON record is indented: what a reader "
                    "sees, not what is read back (the error's last line, which the tests check, is kept)", change)
       for n, change in ((59, "limit=None"), (60, "limit=4"), (98, "indent=None"), (101, "dumps(record, default=str)"),
                         (103, "indent=2"))},
    **{f"course_lib.research.sweep.x_run_point_notebook__mutmut_{n}": (
        "accepted", "default=str is a safety net: every value of a point record comes from JSON (the grid, --set values, "
                    "the notebook's records read back from its JSON output) or is a string or number the sweep makes, "
                    "so no input reaches it", change)
       for n, change in ((99, "default=None)"), (102, "indent=1, )"))},
    **{f"course_lib.research.sweep.x_saved_records__mutmut_{n}": (
        "equivalent", "None and False read the same where `set_aside` is only tested for truth (`if not set_aside`)",
        change) for n, change in ((13, "done_record(out, point, set_aside=None)"), (21, '"failed", set_aside=None)'))},
}
TRIAGE.update(_TRIAGED_AT_4B4B9B7)

# Survivors of the run resumed at e8662af (report b664564: 145 unexplained), triaged by hand at this commit, each mutant
# applied by hand: those a test kills are in KILLED_BY_A_NEWER_TEST below; these no test could tell, or need not
_SWEEP_LABEL = ("accepted", "grid.json's label only names it in the error for a damaged file, and run() has read it "
                            "first in _check_out_dir under the same label, which refuses a damaged one before this")
_TRIAGED_AT_E8662AF: dict[str, tuple[str, ...]] = {
    # answers.py
    f"{ANSWERS}.x__from_last_mark__mutmut_16": (
        "accepted", "starting at 1 rather than 0 drops a character only where the scanned tail (the last MAX_SCAN "
                    "characters) holds no mark, and then only matters where that tail starts exactly with a label",
        "max([1, *starts])"),
    f"{ANSWERS}.x__from_last_mark__mutmut_5": (
        "equivalent", "which of two <answer> tags starts the text cannot matter: two tags are one unreadable answer "
                      "(tagged_answers gives [None]), which every path that reads this text scores 0 first",
        'text.find("<answer>")'),
    f"{ANSWERS}.x__in_digits__mutmut_14": (
        "accepted", "the `one` written for `a` before a scale word stays a word only where the run around it is no "
                    "number (`one a dozen`); its case then changes only a text that is no value either way",
        '"ONE "'),
    f"{ANSWERS}.x__next_offered__mutmut_22": (
        "equivalent", "lastindex is None only when no group matched: group 1's start is then -1, and a search ending "
                      "at -1 finds nothing, as one ending at the match's start (0) does", "lastindex or 1"),
    f"{ANSWERS}.x__next_offered__mutmut_60": (
        "accepted", "with no unit, a gloss's word is compared with '' (never equal) or 'xxxx': only a word spelled "
                    "xxxx after a glossed number differs", '(unit or "XXXX")'),
    **{f"{ANSWERS}.x__offered_value__mutmut_{n}": (
        "equivalent", "the last piece of rsplit('=') is the text after the last `=` whatever the maxsplit", change)
       for n, change in ((9, 'rsplit("=", )[-1]'), (13, 'rsplit("=", 2)[-1]'))},
    f"{ANSWERS}.x__other_value__mutmut_1": (
        "equivalent", "both callers pass `gloss` (offered[2]): the default is never used", "gloss: bool = True"),
    f"{ANSWERS}.x__other_value__mutmut_30": (
        "accepted", "short alternatives with a variable (`1+x` after `\\boxed{x+1}`) would be compared by value too: "
                    "only a restatement math-verify finds equal is credited, never a different value; the rule keeps "
                    "math-verify to numeric ones", "fullmatch(text) or len(text)"),
    f"{ANSWERS}.x__other_value__mutmut_32": (
        "accepted", "only an expression exactly 40 characters long (the heuristic bound) is compared as text instead "
                    "of by value", "len(text) < _SMALL_EXPRESSION"),
    **{f"{ANSWERS}.x__other_value__mutmut_{n}": (
        "equivalent", "two exact values that are equal have returned already (the same text): math_equal of two "
                      "different exact fractions (str(Fraction)) is False, so the extra call decides nothing", change)
       for n, change in ((37, "exact_value(None), exact_value(marked)"), (38, "exact_value(offered), exact_value(None)"))},
    f"{ANSWERS}.x__restated_once__mutmut_8": (
        "equivalent", "without a leading number the mark is returned whole whatever the unit read: `rest` is not used",
        "if (number) or True else None"),
    f"{ANSWERS}.x__restated_once__mutmut_48": (
        "accepted", "normalize_number has dropped a mark's last period, so the rest is '.' only after a restated "
                    "number ending in two (`12 or 12..`)", '"XX.XX")'),
    f"{ANSWERS}.x__stated_answer__mutmut_35": (
        "accepted", "the stated number is looked for within 200 characters of its label (a heuristic bound): 201 "
                    "differs only for a number starting at the 201st", "labels[-1] + 201)"),
    f"{ANSWERS}.x__stated_answer__mutmut_44": (
        "accepted", "the alternative after a stated number is looked for in the next 160 characters (a heuristic "
                    "bound): 161 differs only for one starting at the 161st", "number.end() + 161]"),
    f"{ANSWERS}.x_extract_integer__mutmut_19": (
        "equivalent", "after[:2] is empty exactly when after[:1] is", "if after[:2] and"),
    f"{ANSWERS}.x_extract_integer__mutmut_41": (
        "equivalent", "no digit follows the last number _NUMBER finds (its \\d is re's \\d), so `[eE]\\d` never matches "
                      "the text after it; `13E2` is refused because its last number, 2, follows a letter", r"[ee]\d"),
    # difficulty.py: the entries above for these changes, under the names this run gives them
    **{f"course_lib.difficulty.x_estimate__mutmut_{n}": (*_DIFFICULTY_KEY, change)
       for n, change in ((29, '"XXkXX"'), (30, '"K"'), (31, '"XXtemperatureXX"'), (32, '"TEMPERATURE"'),
                         (33, '"XXmax_new_tokensXX"'), (34, '"MAX_NEW_TOKENS"'), (35, '"XXseedXX"'), (36, '"SEED"'),
                         (37, '"XXchunk_sizeXX"'), (38, '"CHUNK_SIZE"'), (39, '"XXbackendXX"'), (40, '"BACKEND"'),
                         (41, '"XXpromptsXX"'), (42, '"PROMPTS"'))},
    "course_lib.difficulty.x__files_fingerprint__mutmut_11": (
        "accepted", "only the placeholder hashed for a missing config file changes: the fingerprint still changes "
                    "when a config file appears, disappears or is edited, and is only compared with fingerprints "
                    "made by the same code (a cache entry made before would miss once)", 'b"XX-XX"'),
    # research/sweep.py
    **{f"{SWEEP}.x_check_same_versions__mutmut_{n}": (*_SWEEP_LABEL, change)
       for n, change in ((4, '"grid.json", None)'), (10, '"XXthe grid'), (11, '"THE GRID OF THIS FOLDER"'))},
    f"{SWEEP}.x_check_same_versions__mutmut_24": (
        "equivalent", "the name is read only by the message of a check that passes when nothing changed", 'else "XXXX"'),
    **{f"{SWEEP}.x_data_sha256_before_hub__mutmut_{n}": (
        "equivalent", "file_fingerprints returns its keys sorted (and the filter keeps their order), so sort_keys "
                      "changes no byte of the JSON hashed", change)
       for n, change in ((10, "sort_keys=None"), (12, "json.dumps(files, )"), (13, "sort_keys=False"))},
    f"{SWEEP}.x_data_sha256_before_hub__mutmut_7": (
        "accepted", "a point whose every dataset is read from the hub gets the sha256 of '{}' instead of None: only a "
                    "record whose data_sha256 is that (no version wrote one: data_sha256 is written only for a point "
                    "with files) would be resumed instead of refused", "if (files) or True else None"),
    **{f"{SWEEP}.x_parse_overrides__mutmut_{n}": (
        "accepted", "the fallback word is read only for a str parameter whose value fails to parse, which only a NUL "
                    "byte does (`TASK=jsonl:a\\x00b`: `TASK takes str`, or `None`), and no command line can pass one",
        change) for n, change in ((70, "types[key], None)"), (71, ".get(types[key])"), (72, ".get(types[key], )"))},
    **{f"{SWEEP}.x_run_point_notebook__mutmut_{n}": (
        "accepted", "how a point's JSON record is indented: what a reader sees, not what is read back", change)
       for n, change in ((106, "indent=None"), (108, "json.dumps(record, ) +"), (109, "indent=2"))},
    **{f"{SWEEP}.x_run_point_notebook__mutmut_{n}": (
        "accepted", "default=str is a safety net: every value of a point record comes from JSON (the grid, --set "
                    "values, the notebook's records read back from its JSON output) or is a string or number the "
                    "sweep makes, so no input reaches it", change)
       for n, change in ((78, "default=None)"), (80, "json.loads(json.dumps(record, ))"))},
}
TRIAGE.update(_TRIAGED_AT_E8662AF)

# Functions left out of the run by `# pragma: no mutate block (reason)` on their `def` line: plumbing that computes
# no finding (a progress bar, OS and helper-process plumbing, SLURM script text) or runs only on a GPU. Counted here.
PRAGMA = re.compile(r"#\s*pragma: no mutate block \(([^)]*)\)")
DEF = re.compile(r"^\s*def (\w+)\(")


def excluded_functions() -> list[dict]:
    """Each function a pragma leaves out: module, function, reason, and how many mutants mutmut would make of it."""
    from mutmut.mutation.file_mutation import create_mutations

    rows = []
    for module, file in MODULES.items():
        path = ROOT / "course_lib" / file
        source = path.read_text(encoding="utf-8")
        reasons, current = {}, None
        for line in source.splitlines():
            current = DEF.match(line).group(1) if DEF.match(line) else current
            if PRAGMA.search(line):
                reasons[current] = PRAGMA.search(line).group(1)
        if not reasons:
            continue
        _, mutations, *_ = create_mutations(str(path), PRAGMA.sub("", source))  # as if no pragma were there
        counts = Counter(getattr(getattr(m.contained_by_top_level_function, "name", None), "value", None)
                         for m in mutations)
        rows += [{"module": module, "function": name, "reason": why, "mutants": counts[name]}
                 for name, why in reasons.items()]
    return rows


MESSAGE_CALLS = ("check(", "CourseError(", "ValueError(", "warnings.warn(", "raise ")
STRING = re.compile(r'(?:[rRfF]{0,2})"(?:[^"\\]|\\.)*"|(?:[rRfF]{0,2})\'(?:[^\'\\]|\\.)*\'')
ONLY_STRINGS = re.compile(r'^\s*(?:(?:[rRfF]{0,2})"(?:[^"\\]|\\.)*"\s*)+[),]*\s*$')


def changed_lines(diff: str) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a unified diff."""
    lines = diff.splitlines()
    removed = [line[1:] for line in lines if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in lines if line.startswith("+") and not line.startswith("+++")]
    return removed, added


def is_message_wording(diff: str) -> bool:
    """Whether a mutant only changes the text of an error or warning message: a string in the message of check(...)
    (after its condition), of CourseError(...), ValueError(...), warnings.warn(...), or a line that is nothing but
    the strings continuing such a message."""
    removed, added = changed_lines(diff)
    if len(removed) != 1 or len(added) != 1:
        return False
    if STRING.sub('""', removed[0]) != STRING.sub('""', added[0]):
        return False  # something outside the strings changed
    if ONLY_STRINGS.match(removed[0]):
        return True
    first_change = next((i for i, (a, b) in enumerate(zip(removed[0], added[0])) if a != b),
                        min(len(removed[0]), len(added[0])))
    message_start = _message_start(removed[0])
    return message_start is not None and first_change >= message_start


def _message_start(line: str) -> int | None:
    """Where a message begins on a line that makes one: after check(...)'s condition (its first top-level comma),
    or inside CourseError(...), ValueError(...), warnings.warn(...), raise ...; None if the line makes none."""
    masked = STRING.sub(lambda match: '"' + "_" * (len(match.group()) - 2) + '"', line)  # strings hide no commas
    for call in MESSAGE_CALLS:
        at = masked.find(call)
        if at < 0:
            continue
        start = at + len(call)
        if call != "check(":
            return start
        depth = 0
        for i in range(start, len(masked)):
            depth += masked[i] in "([{"
            depth -= masked[i] in ")]}"
            if depth < 0:
                return None  # the call ends on this line without a message
            if masked[i] == "," and depth == 0:
                return i
        return None  # the condition goes on past this line: whatever changed here is the condition
    return None


# Survivors of a run that began before the test that kills them was written (mutant name -> that test, as
# tests/FILE.py::NAME), each checked with the mutant switched on in a copy of mutants/; they count as survivors
# until `make mutation MUTANTS="NAMES"` confirms the kill. (The 137 of the run resumed at bc71b28 were confirmed at
# fa452dc, the 367 of the complete run at 7a96066 at 36ee9f5, the 28 of the run resumed at 1cf188c at 7543864 and
# 6328189, the 11 of the run resumed at 867292e with _check_seed_count's 11 at f9ff907, and the one of the run resumed
# at 2d8b21a with check_finite's 26 at c1a86b3.)
# Survivors explained by what they change, whatever number mutmut gives them: a function's mutants are renumbered
# each time the function changes, which left the entries above for these changes stale run after run.
# (the function's mutant names start with this, the changed line holds one of these, kind, why)
TRIAGE_BY_CHANGE: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("course_lib.difficulty.x_estimate__mutmut_",
     ('"XXkXX"', '"K"', '"XXtemperatureXX"', '"TEMPERATURE"', '"XXmax_new_tokensXX"', '"MAX_NEW_TOKENS"', '"XXseedXX"',
      '"SEED"', '"XXchunk_sizeXX"', '"CHUNK_SIZE"', '"XXbackendXX"', '"BACKEND"', '"XXpromptsXX"', '"PROMPTS"'),
     *_DIFFICULTY_KEY),
    (f"{TRAINING}.x__train_grpo__mutmut_", ("place=None", "load_model(model_name, )", "place=True"),
     "accepted", PLACES_MODEL),
)


def triage_by_change(name: str, diff: str) -> tuple[str, str] | None:
    """(kind, why) of a survivor that TRIAGE_BY_CHANGE explains, else None."""
    changed = "\n".join(changed_lines(diff)[1])
    for prefix, changes, kind, why in TRIAGE_BY_CHANGE:
        if name.startswith(prefix) and any(change in changed for change in changes):
            return kind, why
    return None


KILLED_BY_A_NEWER_TEST: dict[str, str] = {
    **{f"{ANSWERS}.x__after_thinking__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_round_34_a_box_drafted_while_thinking_is_no_answer" for n in (5, 7)},
    **{f"course_lib.research.sweep.x__read_json__mutmut_{n}": "tests/test_sweep.py::"
       "test_a_damaged_file_other_than_the_grid_is_named_with_its_own_fix" for n in (7, 11, 12)},
    **{f"{TRAINING}.x__train_grpo__mutmut_{n}": "tests/test_training.py::"
       "test_a_run_resumed_after_an_upgrade_warns_naming_its_folder_and_step" for n in (48, 50)},
    # the partial run reported at be4ac1d: answers', errors' and train_grpo's survivors, each mutant applied by hand to
    # the code of this commit (answers.py and errors.py unchanged since be4ac1d) and failing the test named
    **{f"{ANSWERS}.x__in_base__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_a_number_in_a_base_keeps_its_sign_and_its_digits_in_any_base_from_2_to_36"
       for n in (12, 13, 14, 18, 19, 23, 34, 36, 37)},
    **{f"{ANSWERS}.x_math_equal__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_a_base_10_subscript_is_a_plain_number_and_another_base_equals_only_that_base"
       for n in (10, 13, 14, 16, 18, 19)},
    **{f"{ANSWERS}.x__other_value__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_an_alternative_that_restates_the_boxed_value_after_its_last_equals_sign_is_no_hedge" for n in (3, 5, 9)},
    **{f"{ANSWERS}.x__words_value__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_a_number_in_words_beside_a_hash_answer_is_read_as_its_digits"
       for n in (3, 4, 13, 14, 15, 39, 40, 41, 43, 44, 45, 46, 49, 50, 51, 52, 53, 56, 59, 60, 61, 62, 63, 64)},
    **{f"{ANSWERS}.x__words_value__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_words_that_make_no_one_number_are_not_read_as_another_number_beside_a_hash_answer"
       for n in (25, 26, 27, 28, 33, 34, 57, 58, 65, 66)},
    **{f"course_lib.errors.x_warn__mutmut_{n}":
       "tests/test_selection.py::test_a_warning_names_the_callers_own_file_and_line_not_one_above_or_below_it"
       for n in (3, 4, 6, 8, 10, 11, 12)},
    "course_lib.errors.x_check_seed__mutmut_12": "tests/test_bad_inputs.py::test_the_largest_seed_numpy_accepts_is_a_seed",
    # (train_grpo's _21, below, read "unexplained" in that report: a stale TRIAGE entry for its old stacklevel=3 line
    # shadowed this entry; applied by hand it fails the test named)
    # sweep's and studies' survivors of the run resumed at 11a5174 (report at be4ac1d), each mutant applied by hand to
    # the code of b168a3d (its test failed, then passed with the code restored); names as the code has them now
    **{f"{STUDIES}.x_check_rows_match_records__mutmut_{n}": "tests/test_studies.py::"
       "test_a_column_only_results_csv_or_only_its_point_records_hold_is_named_on_its_side" for n in (62, 63, 64, 67, 68, 69, 70)},
    **{f"{STUDIES}.x_equivalence_verdict__mutmut_{n}":
       "tests/test_studies.py::test_a_95_percent_interval_that_reaches_exactly_zero_does_not_exclude_it" for n in (34, 36)},
    **{f"{STUDIES}.x_equivalence_verdict__mutmut_{n}":
       "tests/test_studies.py::test_a_difference_whose_mean_rounds_to_zero_keeps_its_side_after_holm" for n in (114, 115)},
    f"{STUDIES}.x_holm_adjusted__mutmut_13": "tests/test_studies.py::test_holm_adjusted_takes_a_p_value_of_zero",
    **{f"{STUDIES}.x_holm_verdicts__mutmut_{n}":
       "tests/test_studies.py::test_holm_verdicts_show_both_adjusted_p_values_to_six_places" for n in (66, 74)},
    **{f"{SWEEP}.x_check_same_code__mutmut_{n}":  # the report's _18, _19, _20, _23, _26, _33, _36, _38 and _39
       "tests/test_sweep.py::test_resumed_points_code_is_checked_at_every_commit_their_records_name"
       for n in (44, 45, 46, 49, 52, 59, 62, 64, 65)},
    f"{SWEEP}.x_check_scripts_unedited__mutmut_12":
        "tests/test_sweep.py::test_a_job_script_edited_by_hand_is_kept_whatever_scripts_come_before_it",
    **{f"{SWEEP}.x_keeps_every_row__mutmut_{n}": "tests/test_sweep.py::test_keeps_every_row_reads_both_tables_as_csv"
       for n in (5, 7, 12, 17, 19)},
    **{f"{SWEEP}.x_run__mutmut_{n}":  # the report's _47, _49 and _57
       "tests/test_sweep.py::test_a_finished_sweep_whose_provenance_predates_the_tables_sha256_is_resumed"
       for n in (77, 79, 87)},
    **{f"{SWEEP}.x_tasks_read__mutmut_{n}":
       "tests/test_sweep.py::test_the_tasks_a_point_reads_are_its_own_and_its_profiles_where_it_names_none"
       for n in (1, 2, 3, 4, 7, 8, 9)},
    # the run resumed at 4b4b9b7 (report b20804b), each mutant applied by hand to the code of this commit; names as the
    # code has them now (see _TRIAGED_AT_4B4B9B7)
    # (is_correct's _51, _55 and _56 of the report mutated the line that read stated numbers for gsm8k and arith alone,
    # which round 25 replaced: test_round_23_a_stated_number_in_a_marks_spellings_beside_a_hash_answer_is_a_hedge and
    # test_only_a_number_tasks_hash_answer_is_read_beside_a_stated_number killed them there; the next run tests its
    # new line's mutants)
    "course_lib.answers.x_is_correct__mutmut_77":  # the report's _65
        "tests/test_answers_and_rewards.py::test_a_number_tasks_quantities_named_by_capital_letters_are_no_option_answers",
    **{f"course_lib.answers.x_is_correct__mutmut_{n}": "tests/test_answers_and_rewards.py::"  # the report's _81, _82
       "test_a_letter_tasks_hash_answer_beside_another_answer_or_a_spray_of_options_scores_zero" for n in (93, 94)},
    **{name: "tests/test_answers_and_rewards.py::test_a_problem_asked_in_its_sources_own_format_is_held_to_that_sources_shape"
       for name in ("course_lib.rewards.x__asked_otherwise__mutmut_4", "course_lib.rewards.x_format_reward__mutmut_41",
                    "course_lib.rewards.x_format_reward__mutmut_71")},
    **{f"course_lib.rewards.x_format_reward__mutmut_{n}":
       "tests/test_answers_and_rewards.py::test_a_column_of_the_wrong_length_is_an_error_naming_it" for n in (17, 21, 22)},
    f"{CONFIG}.x__finite__mutmut_2":
        "tests/test_training.py::test_a_training_setting_that_is_not_a_finite_number_is_refused_by_name",
    **{f"{CONFIG}.x_check_reward_weights__mutmut_{n}":
       "tests/test_training.py::test_check_reward_weights_names_a_weight_that_is_not_finite" for n in (2, 7, 8, 11)},
    **{f"{TRAINING}.x_train_grpo__mutmut_{n}":
       "tests/test_training.py::test_train_grpo_refuses_weights_for_reward_functions_it_lacks_before_anything_runs"
       for n in (21, 26, 27)},
    f"{STUDIES}.x_all_agree__mutmut_9": "tests/test_studies.py::test_values_equal_up_to_float_rounding_agree_at_any_scale",
    f"{STUDIES}.x_distinct_pairs__mutmut_8": "tests/test_studies.py::test_a_pair_of_arms_is_two_arms",
    **{f"{STUDIES}.x_check_every_point_listed__mutmut_{n}":
       "tests/test_studies.py::test_a_table_that_lacks_grid_points_and_has_no_provenance_says_aggregate_was_cut"
       for n in (131, 135)},
    **{name: "tests/test_results.py::test_a_results_row_with_a_blank_beside_a_number_or_without_its_record_is_refused"
       for name in (f"{STUDIES}.x_load_study__mutmut_69",
                    *(f"{STUDIES}.x_check_rows_match_records__mutmut_{n}" for n in (14, 17, 24, 118, 119, 120)))},
    # (the report's _14, _17, _24, _98, _99 and _100)
    **{f"{STUDIES}.x_check_rows_match_records__mutmut_{n}":
       "tests/test_results.py::test_a_failed_points_row_is_compared_with_its_failure_record" for n in (21, 22)},
    f"{STUDIES}.x_check_rows_match_records__mutmut_71":  # the report's _47 (a check(...) then, a raise now)
        "tests/test_results.py::test_round_24_a_damaged_or_edited_point_record_is_named_in_one_line",
    # older than the run, but not run against these mutants: mutmut's incremental stats map a function that is new
    # since they were collected (_asked_otherwise, _groups_to_count, results_table, check_rows_match_records) only to
    # the tests new since then; a run whose stats are collected afresh (a fresh checkout's, without
    # mutants/mutmut-stats.json) runs them
    "course_lib.rewards.x__asked_otherwise__mutmut_1": "tests/test_answers_and_rewards.py::test_rewards_take_trl_keyword_columns",
    "course_lib.selection.x__groups_to_count__mutmut_2":
        "tests/test_selection.py::test_pass_rate_counts_has_a_bar_for_every_possible_value_and_no_other",
    **{f"course_lib.selection.x__groups_to_count__mutmut_{n}": "tests/test_selection.py::"
       "test_pass_rate_counts_takes_one_sample_per_problem_text_rates_and_names_mixed_left_out_groups" for n in (23, 25)},
    "course_lib.selection.x__groups_to_count__mutmut_30": "tests/test_selection.py::"
        "test_pass_rate_counts_refuses_groups_that_leave_problems_out_and_a_k_that_is_not_a_count",
    f"{STUDIES}.x_check_rows_match_records__mutmut_5":
        "tests/test_studies.py::test_load_study_keeps_the_points_that_succeeded_and_reads_the_provenance",
    **{f"{STUDIES}.x_results_table__mutmut_{n}":
       "tests/test_sweep.py::test_aggregate_writes_one_flat_table_sorted_by_point_and_the_provenance"
       for n in (4, 5, 7, 13, 14, 15)},
    # the run resumed at e8662af (report b664564), each mutant applied by hand to the code of this commit and failing the
    # test named (grid_difference's, _options_after's and _offered_value's older tests were not mapped to them by
    # mutmut's stats; the new direct tests name them)
    **{f"{TRAINING}.x__warn_other_code__mutmut_{n}": "tests/test_training.py::"
       "test_the_other_code_warning_names_what_changed_with_the_runs_own_commit_shortened_to_12"
       for n in (8, 20, 22, 23, 24, 27, 28, 29, 31, 32, 33, 38, 43, 56, 63, 64)},
    "course_lib.difficulty.x_pass_rates_at__mutmut_27":
        "tests/test_difficulty.py::test_pass_rates_at_k_recounts_the_first_k_outcomes",
    **{f"{SWEEP}.x_grid_difference__mutmut_{n}": "tests/test_sweep.py::"
       "test_grid_difference_says_which_study_which_set_or_which_parameters_set_a_saved_grid_apart"
       for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23, 25, 26, 27, 28, 29, 30, 31,
                 32, 33, 34, 35, 42, 51, 52, 53, 54, 55, 58, 60, 61, 62, 63)},
    f"{SWEEP}.x_check_same_code__mutmut_40":
        "tests/test_sweep.py::test_resumed_points_code_is_checked_at_every_commit_their_records_name",
    **{f"{SWEEP}.x_tasks_read__mutmut_{n}":
       "tests/test_sweep.py::test_the_tasks_a_point_reads_are_its_own_and_its_profiles_where_it_names_none"
       for n in (22, 23)},
    **{name: "tests/test_sweep.py::test_a_record_is_its_points_only_when_every_setting_and_every_split_agrees"
       for name in (f"{SWEEP}.x_record_problem__mutmut_59",
                    *(f"{SWEEP}.x_record_seal__mutmut_{n}" for n in (3, 5, 7)))},
    **{f"{SWEEP}.x_parse_overrides__mutmut_{n}":
       "tests/test_sweep.py::test_reproduce_set_model_to_a_relative_folder_is_made_absolute" for n in (50, 51)},
    f"{SWEEP}.x_fingerprint_of__mutmut_8":
        "tests/test_sweep.py::test_a_local_datasets_fingerprint_is_over_its_own_folder_whatever_the_length_of_its_name",
    **{f"{SWEEP}.x_run__mutmut_{n}":
       "tests/test_sweep.py::test_round_26_a_sweep_folder_whose_logs_or_runs_is_a_file_is_refused_before_any_point"
       for n in (28, 29, 32, 33, 36, 37, 45)},
    f"{ANSWERS}.x__aside_explains__mutmut_17": "tests/test_answers_and_rewards.py::"
        "test_round_31_a_percent_or_a_describing_aside_after_a_hash_number_reads_the_number",
    f"{ANSWERS}.x__next_offered__mutmut_18": "tests/test_answers_and_rewards.py::"
        "test_round_31_left_a_value_after_and_equals_even_that_is_namely_wait_actually_or_in_parentheses_is_a_hedge",
    **{name: "tests/test_answers_and_rewards.py::"
       "test_round_31_left_a_gloss_with_a_unit_or_a_comparison_after_a_mark_is_an_explanation"
       for name in (f"{ANSWERS}.x__next_offered__mutmut_19", f"{ANSWERS}.x__other_alternative__mutmut_35",
                    f"{ANSWERS}.x__other_alternative__mutmut_37")},
    **{f"{ANSWERS}.x__next_offered__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_a_value_with_a_comma_shown_after_the_mark_is_a_second_value_not_what_the_mark_counts" for n in (70, 79)},
    **{f"{ANSWERS}.x__restated_once__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_round_31_left_a_value_offered_after_a_mark_that_equals_it_in_value_restates_it" for n in (34, 37)},
    f"{ANSWERS}.x__stated_answer__mutmut_29": "tests/test_answers_and_rewards.py::"
        "test_round_33_an_unmarked_aime_answer_stated_beats_the_numbers_of_a_check_after_it",
    f"{ANSWERS}.x__without_aside__mutmut_5":
        "tests/test_answers_and_rewards.py::test_one_marked_answer_scores_whatever_surrounds_it",
    **{f"{ANSWERS}.x_extract_integer__mutmut_{n}": "tests/test_answers_and_rewards.py::test_extract_integer"
       for n in (51, 53, 55, 56)},
    f"{ANSWERS}.x__options_after__mutmut_2": "tests/test_answers_and_rewards.py::test_extract_option",
    **{f"{ANSWERS}.x__offered_value__mutmut_{n}": "tests/test_answers_and_rewards.py::"
       "test_an_alternative_that_restates_the_boxed_value_after_its_last_equals_sign_is_no_hedge" for n in (3, 10, 12)},
    # _stated_fraction's _3 (read any exact value, not only a fraction) showed a bug: a fraction stated with its variable
    # (`The answer is $x = \frac{1}{3}$.`) was not read, so beside a different mark the hedge scored 1. Fixed at
    # ebdcc52; the test fails with the mutant switched on in the code of the run (`n = 1/3` is still unread there) and
    # passes on the fixed code, whose changed function the next run mutates afresh
    f"{ANSWERS}.x__stated_fraction__mutmut_3": "tests/test_answers_and_rewards.py::"
        "test_a_fraction_stated_as_a_variables_value_beside_a_different_mark_is_a_hedge",
}


def kind_of(name: str, diff: str) -> tuple[str, str]:
    """(kind, why) of a survivor: its TRIAGE entry, else a rule for its change, else a newer test, else message
    wording, else unexplained (an entry written for another change under this name is named)."""
    kind, why, *change = TRIAGE.get(name, ("", ""))
    if kind and (not change or change[0] in "\n".join(changed_lines(diff)[1])):
        return kind, why
    if triage_by_change(name, diff):
        return triage_by_change(name, diff)
    if name in KILLED_BY_A_NEWER_TEST:
        return "newer test", (f"killed by {KILLED_BY_A_NEWER_TEST[name]}, which this run did not run against it (written "
                              "after the run began, or older and not mapped to the function by mutmut's stats; the "
                              "mutant applied by hand fails it); still counted as a survivor until "
                              f"`make mutation MUTANTS={name}` confirms")
    if is_message_wording(diff):
        return "message", ("only the wording of an error message changes; tests match messages by their key phrase "
                           "(`pytest.raises(..., match=...)`), which mutmut's `XX...XX` wrapping or a case change of "
                           "another part leaves intact")
    if kind:
        return "unexplained", f"its triage entry was written for another change ({change[0]!r}): triage it again"
    return "unexplained", "not triaged yet"


TESTED = ("killed", "survived", "timeout", "segfault")  # statuses of a mutant whose tests ran to a verdict
VERDICTS = (*TESTED, "no tests", "not checked")  # mutmut's statuses counted as such


def status_of(exit_code: int | None) -> str:
    """mutmut's status for a mutant's exit code, or "not run" where no test's verdict stands behind it: mutmut files
    a forked run whose pytest raised (e.g. a test id it passed was not found) as exit 255, "timeout", and a pytest
    usage error (4) as "suspicious"; a run interrupted or skipped is no verdict either."""
    from mutmut.stats import status_by_exit_code

    status = status_by_exit_code[exit_code]
    return "not run" if exit_code == 255 or status not in VERDICTS else status


def _load_results() -> dict[str, dict[str, str]]:
    """module -> {mutant name: status} from mutmut's state under mutants/ (run from the repository root)."""
    from mutmut.mutation.data import SourceFileMutationData

    results = {}
    for module, file in MODULES.items():
        data = SourceFileMutationData(path=Path("course_lib") / file)
        data.load()
        results[module] = {name: status_of(code) for name, code in sorted(data.exit_code_by_key.items())}
    return results


_PARSED: dict[str, object] = {}  # mutated file -> its parsed module, when mutmut's line index does not serve


def _diff(name: str) -> str:
    """The mutant's change as a unified diff (mutmut's own format). The two functions are read through mutmut's
    line index; where that index is out of date, the mutated file is parsed once and kept (training.py's copy has
    about 60,000 lines: parsing it again for every survivor took minutes)."""
    from difflib import unified_diff

    import libcst
    from mutmut.mutation.diff_apply import (
        find_mutant,
        read_functions_from_index,
        read_mutant_function,
        read_mutants_module,
        read_original_function,
    )

    try:
        path = str(find_mutant(name).path)
        functions = read_functions_from_index(name, path)
        if functions is None:
            if path not in _PARSED:
                _PARSED[path] = read_mutants_module(path)
            functions = (read_original_function(_PARSED[path], name), read_mutant_function(_PARSED[path], name))
    except Exception as error:  # a mutant of a function that has changed since the run
        return f"(no diff: {type(error).__name__})"
    original, mutant = (libcst.Module([function]).code.strip().split("\n") for function in functions)
    return "\n".join(unified_diff(original, mutant, fromfile=path, tofile=path, lineterm="")).strip()


def summarise(results: dict[str, dict[str, str]], kinds: dict[str, str]) -> dict:
    """Counts per module, and the scores: surviving mutants over the non-equivalent ones tested, counting every
    survivor, and leaving out those that change only a message's wording."""
    modules = {}
    for module, statuses in results.items():
        counts = Counter(statuses.values())
        survivors = Counter(kinds[n] for n, s in statuses.items() if s == "survived")
        tested = sum(counts[s] for s in TESTED)
        modules[module] = {**dict(sorted(counts.items())), "mutants": len(statuses), "tested": tested,
                           **{f"survived: {kind}": n for kind, n in sorted(survivors.items())}}
    total = Counter()
    for counts in modules.values():
        total.update(counts)
    non_equivalent = total["tested"] - total["survived: equivalent"]
    surviving = total["survived"] - total["survived: equivalent"]
    wording = total["survived: message"]

    def share(part, whole):
        return round(part / whole, 4) if whole else None

    return {"modules": modules, "total": dict(sorted(total.items())),
            "survivors_share_of_non_equivalent": share(surviving, non_equivalent),
            "survivors_share_without_message_wording": share(surviving - wording, non_equivalent - wording),
            # a mutant no fast test reaches is not killed either: the strict share counts it as a survivor
            "survivors_share_counting_no_tests": share(surviving + total["no tests"], non_equivalent + total["no tests"]),
            "complete": total["not checked"] == 0 and total["not run"] == 0}


def timing(results: dict[str, dict[str, str]]) -> dict:
    """Wall seconds of each `mutmut run` logged in mutants/time.log (GNU time's user, sys, elapsed; startup
    included), beside the mutants tested. Its CPU seconds are the parent's alone: the forked workers' are not counted."""
    log = Path("mutants") / "time.log"
    runs = [line.split() for line in log.read_text(errors="replace").splitlines()] if log.exists() else []
    runs = [run for run in runs if len(run) == 3 and all(part.replace(".", "", 1).isdigit() for part in run)]
    tested = sum(1 for statuses in results.values() for status in statuses.values() if status in TESTED)
    return {"logged_runs": len(runs), "wall_seconds": [round(float(wall)) for *_, wall in runs], "tested": tested,
            "tested_after_run": tested_after_each_run(len(runs), tested)}


def tested_after_each_run(runs: int, tested: int) -> list[int | None]:
    """How many mutants had a verdict after each timed run. `make mutation` writes the report after every run, and
    the report notes the count the first time it sees a run (mutants/checked.log: run number, count)."""
    log = Path("mutants") / "checked.log"
    seen = {}
    for line in log.read_text(errors="replace").splitlines() if log.exists() else []:
        parts = line.split()
        if len(parts) == 2 and all(part.isdigit() for part in parts):
            seen[int(parts[0])] = int(parts[1])
    if runs and runs not in seen:
        seen[runs] = tested
        with log.open("a", encoding="utf-8") as handle:
            handle.write(f"{runs} {tested}\n")
    return [seen.get(run) for run in range(1, runs + 1)]


def mutmut_runs() -> list[dict[str, str]]:
    """The `make mutation` runs whose verdicts the state holds, oldest first: commit, UTC start, what was run
    (mutants/runs.log, a line per run)."""
    log = Path("mutants") / "runs.log"
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    return [dict(zip(("commit", "started", "mutants"), line.split(" ", 2) + ["?"] * 2)) for line in lines
            if line.strip()]  # a line cut short keeps what it has, the rest shown as "?"


def runs_sentence(runs: list[dict[str, str]]) -> str:
    """Which commits' tests reached the verdicts: a killed mutant stays killed when tests are added, and a run
    resumed later tests the rest (and whatever it was asked to test again) with that later commit's tests."""
    if not runs:
        return "No runs are logged in mutants/runs.log: the commit of the verdicts is unknown."
    first, *later = runs
    text = f"The run began at commit {first['commit']} ({first['started']})"
    if later:
        text += "; it was resumed at " + ", ".join(f"{r['commit']} ({r['started']}: {_what_ran(r['mutants'])})"
                                                   for r in later)
    return text + ". Each verdict used the tests of the run that reached it."


def _what_ran(mutants: str) -> str:
    """A run's MUTANTS as written, or, for more than three mutants named in full, how many of each module's."""
    names = mutants.split()
    if len(names) <= 3 or not all(name.startswith("course_lib.") and "__mutmut_" in name for name in names):
        return mutants
    modules = Counter(re.split(r"\.x_|\.xǁ", name)[0].rsplit(".", 1)[-1] for name in names)  # the module's row
    return f"{len(names)} named mutants again (" + ", ".join(f"{module} {n}" for module, n in modules.items()) + ")"


def write_report(results: dict[str, dict[str, str]], commit: str) -> None:
    """mutation.md and mutation.json from mutmut's results; `commit`: the checkout's, read before anything is written."""
    from importlib import metadata

    from course_lib.provenance import atomic_write_text, library_versions

    survivors = [n for statuses in results.values() for n, s in statuses.items() if s == "survived"]
    diffs = {name: _diff(name) for name in survivors}
    triage = {name: kind_of(name, diffs[name]) for name in survivors}
    summary = summarise(results, {name: kind for name, (kind, _) in triage.items()})
    excluded = excluded_functions()
    times = timing(results)
    record = {"command": COMMAND, "commit": commit, "runs": mutmut_runs(),
              "versions": {**library_versions(), "mutmut": metadata.version("mutmut")},
              "machine": f"{os.cpu_count()} CPUs", **summary, "excluded": excluded, "timing": times,
              "survivors": {name: kind for name, (kind, _) in triage.items()},
              # an entry that explains no survivor: its mutant is killed now, or renamed by an edit
              "stale_triage": sorted(n for n in TRIAGE if n not in triage)}

    total = summary["total"]
    lines = ["# Mutation testing of the core modules", "",
             f"Made by `{COMMAND}` (report written at {record['commit']}) with mutmut {record['versions']['mutmut']} "
             f"and torch {record['versions'].get('torch')}, on {record['machine']}. For each mutant mutmut runs only "
             "the fast tests that reach its function, from the test files listed under `[tool.mutmut]` in "
             "pyproject.toml; a mutant of a function no such test calls counts as `no tests`. " + runs_sentence(record["runs"]),
             ""]
    if not summary["complete"]:
        done = [m for m, c in summary["modules"].items() if c.get("not checked", 0) == 0]
        lines += [f"**Partial**: {total.get('not checked', 0)} of {total['mutants']} mutants are not checked yet; "
                  f"complete modules: {', '.join(done) or 'none'}. Resume with `make mutation` (verdicts already "
                  "reached are kept in mutants/ and in mutation-verdicts.json, which a fresh checkout's run starts "
                  "from). The shares below are over the mutants checked so far: they say nothing yet about the modules "
                  "with few or no checked mutants.", ""]
    kinds = ("equivalent", "accepted", "message", "newer test", "unexplained")
    lines += ["| module | mutants | killed | survived | " + " | ".join(f"of which {k}" for k in kinds)
              + " | timeout or crash | no tests | not checked |", "| --- " * 12 + "|"]
    for module, c in summary["modules"].items():
        lines.append(f"| {module} | {c['mutants']} | {c.get('killed', 0)} | {c.get('survived', 0)} | "
                     + " | ".join(str(c.get(f"survived: {k}", 0)) for k in kinds)
                     + f" | {c.get('timeout', 0) + c.get('segfault', 0)} | {c.get('no tests', 0)} | "
                       f"{c.get('not checked', 0)} |")
    if total.get("not run", 0):
        lines += ["", f"**{total['not run']} mutants' tests did not run** (pytest stopped before running them, which "
                      "mutmut counts as a timeout): they are no verdict; find why with `debug = true` under "
                      "[tool.mutmut], then test them again with `make mutation MUTANTS=...`."]
    every, without = summary["survivors_share_of_non_equivalent"], summary["survivors_share_without_message_wording"]
    if every is not None:
        lines += ["", f"Survivors that are not equivalent: **{every:.1%}** of the non-equivalent mutants tested; "
                      f"**{without:.1%}** leaving out those that change only a message's wording (target: at most 10%)."]
    strict = summary["survivors_share_counting_no_tests"]
    if strict is not None:
        lines += ["", f"Counting the mutants no fast test reaches (`no tests`) as survivors too: **{strict:.1%}**."]
    lines += ["", "## Left out of the run", "",
              f"{sum(r['mutants'] for r in excluded)} mutants of these functions are not made at all "
              "(`# pragma: no mutate block (reason)` on the `def` line); they compute no finding:", "",
              "| module | function | reason | mutants |", "| --- | --- | --- | --- |"]
    lines += [f"| {r['module']} | `{r['function']}` | {r['reason']} | {r['mutants']} |" for r in excluded]
    lines += ["", "## Time"]
    if times["wall_seconds"]:
        walls, after = times["wall_seconds"], times["tested_after_run"]
        lines += ["", f"Measured: {len(walls)} logged `mutmut run`(s) (mutants/time.log, startup included) took "
                      + ", ".join(f"{w / 60:.1f} min" + (f" ({n} mutants tested after it)" if n is not None else "")
                                  for w, n in zip(walls, after))
                      + f" of wall time ({sum(walls) / 60:.1f} min in all) for {times['tested']} tested mutants, "
                        f"on {os.cpu_count()} CPUs"
                      + (f"; {len(record['runs']) - len(walls)} of the {len(record['runs'])} runs in mutants/runs.log "
                         "have no timing (stopped together with their timer), so the whole took longer than this"
                         if len(record["runs"]) > len(walls) else "") + ". "
                      + (f"**The first run, from scratch, tested all {total['mutants']} mutants within the hour.**"
                         if len(record["runs"]) == len(walls) and after[0] == total["mutants"] and walls[0] <= 3600
                         else "")]
    lines += ["", "## Survivors", "",
              "Kinds: *equivalent* (no test could tell), *accepted* (harmless, or reachable only on a GPU), "
              "*message* (only an error message's wording changes), *newer test* (a test written after the run began kills "
              "it; not re-run yet), *unexplained* (a gap in the tests).", ""]
    if record["stale_triage"]:
        lines += [f"Triage entries that explain no survivor (killed now, renamed by an edit, or not checked yet): "
                  f"{', '.join(record['stale_triage'])}.", ""]
    for name in sorted(survivors, key=lambda n: (kinds.index(triage[n][0]) * -1, n)):
        kind, why = triage[name]
        lines += [f"### `{name}`: {kind}", "", why, "", "```diff", diffs[name], "```", ""]
    atomic_write_text(OUT / "mutation.json", json.dumps(record, indent=1) + "\n")  # both built before either is written
    atomic_write_text(OUT / "mutation.md", "\n".join(lines) + "\n")


VERDICTS_FILE = OUT / "mutation-verdicts.json"  # each mutant's verdict and each function's hash, committed: a run
# resumes on a fresh checkout (mutants/ is not in git), and mutmut tests again only the functions changed since


def save_verdicts() -> None:
    """mutmut's verdicts under mutants/ (its .meta files, without the timings) and its runs.log into VERDICTS_FILE."""
    from course_lib.provenance import atomic_write_text

    runs = Path("mutants") / "runs.log"
    record = {"runs.log": runs.read_text().splitlines() if runs.exists() else []}
    for meta in sorted(Path("mutants").rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        record[str(meta.relative_to("mutants"))] = {key: data[key] for key in ("exit_code_by_key",
                                                                              "hash_by_function_name")}
    atomic_write_text(VERDICTS_FILE, json.dumps(record, indent=0, sort_keys=True) + "\n")


def restore_verdicts() -> int:
    """VERDICTS_FILE's verdicts as mutmut's .meta files in a mutants/ that has none; the number restored."""
    if not VERDICTS_FILE.exists() or any(Path("mutants").rglob("*.py.meta")):
        return 0
    record = json.loads(VERDICTS_FILE.read_text())
    Path("mutants").mkdir(exist_ok=True)
    (Path("mutants") / "runs.log").write_text("".join(line + "\n" for line in record.pop("runs.log", [])))
    for name, data in record.items():
        meta = Path("mutants") / name
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({**data, "type_check_error_by_key": {}, "durations_by_key": {},
                                    "estimated_durations_by_key": {}}, indent=4))
    return sum(len(data["exit_code_by_key"]) for data in record.values())


if __name__ == "__main__":
    if sys.argv[1:] == ["--restore"]:  # before `mutmut run` on a fresh checkout (make mutation)
        print(f"restored {restore_verdicts()} mutants' verdicts from {VERDICTS_FILE.relative_to(ROOT)}")
        sys.exit(0)
    if not (Path("mutants").is_dir() and Path("pyproject.toml").exists()):
        sys.exit("run from the repository root after `mutmut run` (make mutation)")
    from course_lib.provenance import git_commit

    before = git_commit()  # saving the verdicts below edits a tracked file: read the checkout's state first
    save_verdicts()
    loaded = _load_results()
    if not any(loaded.values()):
        sys.exit("mutants/ holds no mutants yet (mutmut stopped before making them?); run `make mutation`")
    write_report(loaded, before)
    print(f"wrote {OUT / 'mutation.md'} and {OUT / 'mutation.json'}")
