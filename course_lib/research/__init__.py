"""The research tooling: studies, sweeps, the experiment template's helpers, the scorecard."""
