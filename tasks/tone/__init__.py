"""Tone stress test: does a judge reward how a text sounds rather than what it says?"""
