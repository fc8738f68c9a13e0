"""The one error type the course raises for bad input, and the bounds every command shares.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

import numbers
import sys
import warnings
from pathlib import Path

LIBRARY = str(Path(__file__).resolve().parent)
PASSED_THROUGH = (LIBRARY,)  # folders whose frames a warning skips to reach its caller (tests add mutmut's wrapper)

MAX_SEED = 2**32 - 1  # numpy's and torch's seed range: a larger seed fails deep inside a library


class CourseError(ValueError):
    """Bad input to a course function: the message names the parameter and the fix (every notebook)."""


def check(condition: bool, message: str) -> None:
    """Raise CourseError(message) unless condition holds (used to validate early)."""
    if not condition:
        raise CourseError(message)


def check_seed(seed, name: str = "seed") -> None:
    """A seed is an integer from 0 to MAX_SEED (what numpy and torch accept); one line naming it otherwise."""
    check(isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= MAX_SEED,
          f"{name}={seed!r} must be an integer from 0 to {MAX_SEED:,} (numpy's seed range)")


def is_number(value) -> bool:
    """A real number (Python's or numpy's, a Fraction), not a bool and not text: "0.03" read from a file is refused,
    not compared (numpy's bool is no real number either)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def whole(value) -> bool:
    """A whole number (Python's or numpy's int), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def warn(message: str) -> None:
    """A warning shown at the first line outside the library (the student's call), however deep inside the library
    it was raised: a fixed stacklevel points into the library when another library function is the caller (03)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(PASSED_THROUGH):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, stacklevel=level)
