"""auger.core.bounded_json: the nesting bound counts brackets outside strings only."""

from __future__ import annotations

import json

import pytest

from auger.core.bounded_json import MAX_DEPTH, TooDeep, loads


def test_brackets_inside_strings_do_not_count() -> None:
    text = '[[[ {{{ \\" ]]] ' * 1000
    assert loads(json.dumps({"prompt": text, "parts": [{"text": text}]}).encode())["prompt"] == text


def test_the_limit_itself_parses_and_one_more_level_is_refused() -> None:
    assert loads(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    with pytest.raises(TooDeep, match=f"more than {MAX_DEPTH} levels deep"):
        loads(b'{"a": ' * MAX_DEPTH + b"[1]" + b"}" * MAX_DEPTH)
