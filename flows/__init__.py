"""Prefect flows: wiring of stages only."""
