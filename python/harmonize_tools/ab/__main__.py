"""`python3 -m harmonize_ab` (with scripts/ or share/harmonize/python on sys.path)."""
import sys
from pathlib import Path

from .cli import main

if __name__ == "__main__":
    # harmonize-run sits in scripts/ (source tree) or bin/ (install); the
    # package in scripts/harmonize_ab or share/harmonize/python/harmonize_ab.
    here = Path(__file__).resolve().parent.parent
    candidates = [here, here.parent.parent.parent / "bin"]
    script_dir = next((c for c in candidates if (c / "harmonize-run").is_file()), here)
    sys.exit(main(sys.argv[1:], script_dir))
