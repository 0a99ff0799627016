"""Writing and reading harmonize-ab's own files: a write that fails names its
file (OutputError), JSON is written atomically, and a file gone missing or
damaged since is a DamagedFile naming it."""
import json
import os
from pathlib import Path


class OutputError(Exception):
    """A file of the output directory cannot be written (full disk, permissions)."""


class DamagedFile(ValueError):
    """A file harmonize-ab wrote earlier is missing or unreadable; the message names it."""


def write_text(path, text):
    # A failed write.write() names no file: add it, so the user knows which one.
    try:
        Path(path).write_text(text)
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from error


def write_json(path, data):
    """Write JSON atomically: a reader never sees half a file, and a failed
    write (full disk) leaves neither a half file nor the temporary one."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        write_text(temporary, json.dumps(data, indent=2, sort_keys=False) + "\n")
        os.replace(temporary, path)
    except BaseException as error:
        # A signal's exception too (harmonize-ab stops on SIGTERM): never
        # leave the temporary file behind, whatever interrupted the write.
        try:
            temporary.unlink()
        except OSError:
            pass
        if not isinstance(error, (OutputError, OSError)):
            raise
        cause = error.__cause__ if isinstance(error, OutputError) else error
        raise OutputError(f"cannot write {path}: {getattr(cause, 'strerror', None) or cause}") from error


def read_text(path):
    try:
        return Path(path).read_text(errors="replace")
    except OSError as error:
        raise DamagedFile(f"cannot read {path}: {error.strerror or error}") from error


def read_json(path, required=()):
    """A JSON object from one of our files; DamagedFile naming the file otherwise."""
    text = read_text(path)
    try:
        data = json.loads(text)
    except ValueError as error:
        raise DamagedFile(f"{path} is not valid JSON ({error})") from error
    if not isinstance(data, dict):
        raise DamagedFile(f"{path} is damaged: not a JSON object")
    missing = [key for key in required if key not in data]
    if missing:
        raise DamagedFile(f"{path} is damaged: {', '.join(missing)} missing")
    return data
