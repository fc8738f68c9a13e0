"""course_lib: the thin helper library of the GRPO training-data difficulty course."""

from .errors import CourseError
from .tasks import Problem

__all__ = ["CourseError", "Problem"]
__version__ = "0.1.0"
