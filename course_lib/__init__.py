"""course_lib: the thin helper library of the GRPO training-data difficulty course."""

from .classroom.quiet import filter_library_deprecations
from .errors import CourseError
from .tasks import Problem

filter_library_deprecations()

__all__ = ["CourseError", "Problem"]
__version__ = "0.1.0"
