"""The Prefect REST API, read the way the UI reads it."""

from __future__ import annotations

import httpx


class Api:
    """The Prefect REST API, as the UI uses it."""

    def __init__(self, url: str) -> None:
        self.client = httpx.Client(base_url=url, timeout=30)

    def get(self, path: str) -> dict | list:
        response = self.client.get(path)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: dict) -> dict | list:
        response = self.client.post(path, json=body)
        response.raise_for_status()
        return response.json()
