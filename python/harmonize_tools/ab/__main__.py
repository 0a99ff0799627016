"""`python3 -m harmonize_tools.ab`: harmonize-ab, its runs going through the
harmonize-run of the launchers' directory (common.tools_dir)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
