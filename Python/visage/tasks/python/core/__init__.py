"""Core task options."""

from visage.tasks.python.core import base_options
