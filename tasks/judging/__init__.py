"""Judging: scales, prompts, request keys, providers, parsing, the call engine and the store."""
