"""Stages of a judgelab study: pure transforms plus the one module that does I/O."""
