"""The docs' operations advice (docs/how-to/prefect-ui.md, where the README's text moved): a
`prefect server start` to copy comes with usage analytics off (judgelab's own temporary servers
have it off; a server started by hand does not). Every page of docs/ and the README are read."""

from __future__ import annotations

import re

from judgelab.settings import PROJECT_ROOT


def test_every_prefect_server_start_in_the_docs_turns_analytics_off() -> None:
    pages = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").rglob("*.md"))]
    text = "\n".join(p.read_text() for p in pages)
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    starts = [b for b in blocks if "prefect server start" in b]
    assert starts, "the docs show how to start a Prefect server"
    assert "prefect server start" in (PROJECT_ROOT / "docs/how-to/prefect-ui.md").read_text()
    for block in starts:
        assert "export PREFECT_SERVER_ANALYTICS_ENABLED=false" in block, block
    inline = re.findall(r"`([^`]*prefect server start[^`]*)`", text.replace("\n", " "))
    for command in inline:
        if "--" in command:  # a command to run, not the name of one
            assert "PREFECT_SERVER_ANALYTICS_ENABLED=false" in command, command
