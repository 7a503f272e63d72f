"""Skills as written in the wild (tests/fixtures/skills, see its README): a SKILL.md without
`name`, `allowed-tools` in comma and list form (Claude Code's rule syntax), a description over
1,024 characters kept whole with a warning, `$ARGUMENTS` in the body."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from auger.core.catalog.arguments import expand_arguments
from auger.core.catalog.skills import SKILL_KEY, discover_skills, invocation_message
from auger.settings import Settings, load_settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "skills"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    home, project = tmp_path / "auger-home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    shutil.copytree(FIXTURES, project / ".claude" / "skills")
    return load_settings(cwd=project, env={"AUGER_HOME": str(home), "HOME": str(tmp_path)})


def test_every_real_skill_loads(settings: Settings) -> None:
    catalog = discover_skills(settings)
    names = {s.name for s in catalog if s.source == "project .claude"}
    assert names == {"webapp-testing", "claude-api", "review-diff", "explain-code"}


def test_a_skill_without_name_takes_its_folder_name(settings: Settings) -> None:
    skill = discover_skills(settings).get("review-diff")
    assert skill is not None and skill.description.startswith("Review the current git diff")


def test_allowed_tools_in_comma_and_list_form(settings: Settings) -> None:
    catalog = discover_skills(settings)
    review, explain = catalog.get("review-diff"), catalog.get("explain-code")
    assert review is not None and explain is not None
    assert review.allowed_tools == ("Read", "Grep", "Glob", "Bash(git diff:*)", "Bash(git status:*)")
    assert explain.allowed_tools == ("Read", "Grep", "Glob")
    webapp = catalog.get("webapp-testing")
    assert webapp is not None and webapp.allowed_tools == ()


def test_a_long_description_is_kept_whole_with_a_warning(settings: Settings) -> None:
    catalog = discover_skills(settings)
    skill = catalog.get("claude-api")
    assert skill is not None and len(skill.description) == 1068
    assert skill.description.rstrip().endswith(skill.description.rstrip()[-40:])  # not cut
    [warning] = [w for w in catalog.warnings if "claude-api" in w]
    assert "1068 characters" in warning and "over the 1024" in warning


def test_an_allowed_tools_entry_auger_cannot_read_skips_the_skill(settings: Settings) -> None:
    bad = settings.project_root / ".claude" / "skills" / "broken"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\ndescription: x\nallowed-tools: Bash(git diff:*\n---\nbody\n")
    catalog = discover_skills(settings)
    assert catalog.get("broken") is None
    [warning] = [w for w in catalog.warnings if "broken" in w]
    assert "allowed-tools" in warning and 'missing ")"' in warning


def test_invocation_expands_arguments_and_carries_the_allowed_tools(settings: Settings) -> None:
    message = invocation_message("/review-diff error handling in parser.py", settings)
    assert "Focus on: error handling in parser.py" in message.content
    assert "$ARGUMENTS" not in message.content
    assert message.additional_kwargs[SKILL_KEY]["allowed_tools"][3] == "Bash(git diff:*)"
    plain = invocation_message("/webapp-testing check the login page", settings)
    assert "allowed_tools" not in plain.additional_kwargs[SKILL_KEY]


def test_positional_arguments_split_like_a_shell() -> None:
    text = "Fix issue #$1 with priority $2 ($ARGUMENTS); $3 is empty; $10 stays"
    assert (
        expand_arguments(text, '123 "very high"')
        == 'Fix issue #123 with priority very high (123 "very high");  is empty; $10 stays'
    )
    assert expand_arguments("$1/$2", "it's") == "it's/"  # an unclosed quote: split on spaces
