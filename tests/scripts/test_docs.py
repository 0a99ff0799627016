"""The README's variable table is the policy table (harmonize-config --markdown),
harmonize-config validates an environment like the library does, the documents'
links resolve, and every command docs/benchmarks.md shows beside a figure still
runs: its program exists and accepts every option shown."""
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BIN, PYTHON_DIR, SOURCE_DIR, clean_environment

BENCHMARKS = SOURCE_DIR / "docs" / "benchmarks.md"


def readme_table():
    text = (SOURCE_DIR / "README.md").read_text()
    match = re.search(r"<!-- variables:begin -->\n(.*?)<!-- variables:end -->", text, re.S)
    assert match, "README.md lacks the variables block"
    return match.group(1)


def test_readme_table_matches_the_policy_table():
    generated = subprocess.run([BIN / "harmonize-config", "--markdown"], capture_output=True,
                               text=True, check=True).stdout
    assert readme_table() == generated, (
        "README.md's variable table is out of date: regenerate it with "
        "build/bin/harmonize-config --markdown")


@pytest.mark.parametrize("document", ["README.md", "docs/benchmarks.md"])
def test_every_variable_the_readme_mentions_exists(document):
    text = (SOURCE_DIR / document).read_text()
    table = readme_table()
    # -DHARMONIZE_...: CMake options, not environment variables.
    for name in set(re.findall(r"(?<!-D)HARMONIZE_[A-Z_]+[A-Z]", text)):
        if name in ("HARMONIZE_SLAK",):  # the README's example of a typo
            continue
        assert f"`{name}`" in table, name


def test_config_tool_validates_the_environment(tmp_path):
    ok = subprocess.run([BIN / "harmonize-config"], capture_output=True, text=True,
                        env=clean_environment(HARMONIZE_MODE="observe"))
    assert ok.returncode == 0 and "observe" in ok.stdout and "(environment)" in ok.stdout
    bad = subprocess.run([BIN / "harmonize-config"], capture_output=True, text=True,
                         env=clean_environment(HARMONIZE_MODE="fast", HARMONIZE_SLAK="1us"))
    assert bad.returncode == 2
    assert "HARMONIZE_MODE='fast' is not valid" in bad.stderr
    assert "did you mean HARMONIZE_SLACK?" in bad.stderr


def test_the_default_preset_spells_out_every_default():
    """config/default.env says it spells out the defaults: every variable
    with a default, at the library's default, but HARMONIZE_MODE (off by
    default; a preset is loaded to harmonize)."""
    table = subprocess.run([BIN / "harmonize-config", "--markdown"], capture_output=True,
                           text=True, check=True).stdout
    defaults = {name: value.strip("`") for name, value in
                re.findall(r"^\| `(HARMONIZE_[A-Z_]+)` \| (`[^`]*`|\(none\)) \|", table, re.M)
                if value != "(none)"}
    defaults["HARMONIZE_MODE"] = "harmonize"
    preset = {}
    for line in (SOURCE_DIR / "config" / "default.env").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, value = line.split("=", 1)
            preset[name] = value
    assert preset == defaults


# --- links -----------------------------------------------------------------

def _anchors(path):
    """GitHub's anchors of a Markdown file's headings (outside code blocks)."""
    anchors, in_code = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            heading = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower())
            anchors.add(heading.replace(" ", "-"))
    return anchors


def test_relative_links_of_the_documents_resolve():
    """Every relative link (and #anchor) of README.md and docs/*.md points at
    something that exists: a section moved out of the README leaves no dead link."""
    broken = []
    for document in [SOURCE_DIR / "README.md", *sorted((SOURCE_DIR / "docs").glob("*.md"))]:
        text = re.sub(r"```.*?```", "", document.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = (document.parent / path) if path else document
            if not resolved.exists():
                broken.append(f"{document.name}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
                broken.append(f"{document.name}: {target} (no such section)")
    assert not broken, broken


def test_user_documents_do_not_speak_of_issues():
    for document in [SOURCE_DIR / "README.md", *sorted((SOURCE_DIR / "docs").glob("*.md"))]:
        hits = [line for line in document.read_text().splitlines()
                if re.search(r"\bissues?\b", line, re.I)]
        assert not hits, (document.name, hits)


# --- the commands of docs/benchmarks.md ----------------------------------------

# Running a benchmark takes minutes. Each command is run instead with its own
# options and values followed by one option no program knows: the program's
# parser reads the options in order and stops at the first it refuses, before
# any MPI job starts. The command still runs when that first refusal is the
# sentinel's; a program gone, an option renamed or dropped, or a value no
# longer accepted is refused first and named.
SENTINEL = "--no-such-option-of-the-docs-test"
SHELL_OPERATORS = {"&&", "||", ";", "|"}


def _program(tokens, i):
    """(name, command prefix, index of its first argument) if tokens[i]
    starts a program of ours, else None."""
    token = tokens[i]
    if token.startswith("build/bin/"):
        return token.rsplit("/", 1)[-1], [str(BIN / token.rsplit("/", 1)[-1])], i + 1
    if token.startswith("scripts/harmonize-"):
        return token.rsplit("/", 1)[-1], [sys.executable, str(SOURCE_DIR / token)], i + 1
    if token.startswith("python3") and tokens[i + 1:i + 2] == ["-m"] and len(tokens) > i + 2 \
            and tokens[i + 2].startswith("harmonize_tools."):
        return tokens[i + 2], [sys.executable, "-m", tokens[i + 2]], i + 3
    return None


def benchmark_commands():
    """(program, command prefix, its arguments as shown) for every program of
    ours in the page's ```sh blocks; the arguments end at a shell operator or
    at `--` (what follows is a wrapped command, looked at on its own)."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", BENCHMARKS.read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            tokens = shlex.split(line, comments=True)
            current, i = None, 0
            while i < len(tokens):
                found = _program(tokens, i)
                if found:
                    current = (found[0], found[1], [])
                    commands.append(current)
                    i = found[2]
                    continue
                if tokens[i] in SHELL_OPERATORS or tokens[i] == "--":
                    current = None
                elif current is not None:
                    current[2].append(tokens[i])
                i += 1
    return commands


def _first_refusal(prefix, arguments):
    """The program's first complaint when run with `arguments` and the sentinel."""
    try:
        done = subprocess.run(prefix + arguments + [SENTINEL], capture_output=True, text=True,
                              timeout=20, cwd=PYTHON_DIR, stdin=subprocess.DEVNULL,
                              env=clean_environment(PYTHONPATH=str(PYTHON_DIR)))
    except subprocess.TimeoutExpired:
        return "ran on instead of refusing an unknown option"
    if done.returncode == 0:
        return "exited 0 instead of refusing an unknown option"
    for line in (done.stderr + done.stdout).splitlines():
        # argparse prints its usage first (indented when it wraps), then "prog: error: ..."
        if line.strip() and not line.startswith(("usage:", " ")):
            return line.split("usage:")[0]  # a one-line message may append its usage
    return f"exit status {done.returncode} and no message"


def test_benchmarks_page_shows_the_commands_of_its_figures():
    programs = {name for name, _, _ in benchmark_commands()}
    assert {"harmonize-bench-overhead", "harmonize-bench-barrier", "harmonize-clockcheck",
            "harmonize_tools.frontier"} <= programs, programs


def test_every_command_of_the_benchmarks_page_still_runs():
    stale, seen = [], set()
    for name, prefix, arguments in benchmark_commands():
        if (name, tuple(arguments)) in seen:
            continue
        seen.add((name, tuple(arguments)))
        if prefix[0] != sys.executable and not Path(prefix[0]).exists():
            stale.append(f"{name}: no such program in {BIN}")
            continue
        refusal = _first_refusal(prefix, arguments)
        shown = set(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", refusal)) - {SENTINEL}
        if SENTINEL not in refusal or shown & set(arguments):
            stale.append(f"{name} {' '.join(arguments)}: {refusal}")
    assert not stale, "docs/benchmarks.md shows commands that no longer run:\n" + "\n".join(stale)
