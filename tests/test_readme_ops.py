"""The README's operations advice: a `prefect server start` to copy comes with usage analytics
off (judgelab's own temporary servers have it off; a server started by hand does not)."""

from __future__ import annotations

import re

from judgelab.settings import PROJECT_ROOT


def test_every_prefect_server_start_in_the_readme_turns_analytics_off() -> None:
    text = (PROJECT_ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    starts = [b for b in blocks if "prefect server start" in b]
    assert starts, "the README shows how to start a Prefect server"
    for block in starts:
        assert "export PREFECT_SERVER_ANALYTICS_ENABLED=false" in block, block
    inline = re.findall(r"`([^`]*prefect server start[^`]*)`", text.replace("\n", " "))
    for command in inline:
        if "--" in command:  # a command to run, not the name of one
            assert "PREFECT_SERVER_ANALYTICS_ENABLED=false" in command, command
