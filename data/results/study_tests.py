"""What the confirmatory studies' analyze.py scripts share: each claim's pre-registered paired test as the scorecard
reads it, the line every analysis.md opens with, and writing the file (run from the project root by make.sh)."""

from pathlib import Path

import pandas as pd

from course_lib.provenance import atomic_write_text
from course_lib.research.scorecard import claim_values, reference_check
from course_lib.research.studies import equivalence_verdict


def claim_tests(table: pd.DataFrame, claims: dict, margin: float) -> pd.DataFrame:
    """Each claim's paired test at the margin, with the reference arm's check (`why_not`: why it cannot vouch)."""
    rows = []
    for name, claim in claims.items():
        reference = reference_check(table, claim)
        rows.append({"test": name, **equivalence_verdict(claim_values(table, claim), margin,
                                                          sensitive=reference["sensitive"]),
                     "reference_gain": reference.get("reference_gain"), "why_not": reference["why"]})
    return pd.DataFrame(rows)


def opening(study: str, table: pd.DataFrame, margin: float) -> list[str]:
    """analysis.md's title and the line saying what it was read from."""
    commits = sorted(set(table["commit"]))
    return [f"# {study}: the pre-registered tests (made by make.sh; do not edit)", "",
            f"{len(table)} points, seeds {int(table['seed'].min())}-{int(table['seed'].max())}, point commit(s) "
            f"{', '.join(c[:7] for c in commits)}; base accuracy on the test problems "
            f"{table['accuracy_before.test'].iloc[0]:.4f} at K={int(table['base_k.test'].iloc[0])} (variance of the "
            f"mean {table['base_variance.test'].iloc[0]:.1e}); margin {margin}.", ""]


def closing(study: str) -> list[str]:
    return [f"Made from results.csv by `bash data/results/{study}/make.sh` (the points' commit and versions are in "
            "results.csv and provenance.json).", ""]


def write(text: str, out: Path) -> None:
    atomic_write_text(out, text)
    print(f"wrote {out}")
