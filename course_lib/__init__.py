"""course_lib: the thin helper library of the GRPO training-data difficulty course."""

from .errors import CourseError
from .quiet import filter_library_deprecations
from .tasks import Problem

filter_library_deprecations()

__all__ = ["CourseError", "Problem"]
__version__ = "0.1.0"
