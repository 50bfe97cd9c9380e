"""Exit codes as normbench's (README "Exit codes") and the error that means exit 2."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_RUNTIME = 0, 1, 2, 3


class UsageError(Exception):
    """Bad command line, config, tensor files or submission path: exit 2."""
