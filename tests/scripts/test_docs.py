"""The README's variable table is the policy table (harmonize-config --markdown),
and harmonize-config validates an environment like the library does."""
import re
import subprocess

from conftest import BIN, SOURCE_DIR, clean_environment


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


def test_every_variable_the_readme_mentions_exists():
    text = (SOURCE_DIR / "README.md").read_text()
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
