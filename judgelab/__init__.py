"""judgelab: measure how far an LLM judge can be trusted."""
