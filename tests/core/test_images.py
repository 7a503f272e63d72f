"""Which models take images (`auger.core.models.images`): config per model, over config per
provider, over the model's known profile, over no."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.core.models.capabilities import model_capabilities
from auger.settings import Settings, load_settings


def _settings(tmp_path: Path, text: str) -> Settings:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    (home / "config.toml").write_text(text)
    return load_settings(cwd=project, env={"AUGER_HOME": str(home)})


LOCAL = '[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\n'


def test_a_model_nothing_is_known_of_takes_no_images(tmp_path: Path) -> None:
    assert model_capabilities(_settings(tmp_path, LOCAL), "local:llava").images is False


def test_the_known_profile_answers_unless_config_says_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "not-used")  # the client is built, never called
    settings = _settings(tmp_path, '[models."openai:gpt-4o-mini"]\nimages = false\n')
    assert model_capabilities(settings, "openai:gpt-4o").images is True  # models.dev: it does
    assert model_capabilities(settings, "openai:gpt-4o-mini").images is False


def test_the_model_entry_wins_over_the_provider(tmp_path: Path) -> None:
    text = LOCAL + 'images = true\n[models."local:coder"]\nimages = false\n[models.qwen-vl]\nimages = true\n'
    settings = _settings(tmp_path, text)
    assert settings.warnings == []
    flags = {spec: model_capabilities(settings, spec).images for spec in ("local:llava", "local:coder")}
    assert flags == {"local:llava": True, "local:coder": False}
    assert model_capabilities(settings, "local:qwen-vl").images is True
