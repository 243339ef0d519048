"""Test and benchmark doubles. Nothing here is used by a real study."""
