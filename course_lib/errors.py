"""The one error type the course raises for bad input.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""


class CourseError(ValueError):
    """Bad input to a course function: the message names the parameter and the fix."""


def check(condition: bool, message: str) -> None:
    """Raise CourseError(message) unless condition holds (used to validate early)."""
    if not condition:
        raise CourseError(message)
