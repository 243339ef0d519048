"""Accuracy studies: TRUE/FALSE verdicts against a reference label or the designs' consensus."""
