"""The pairwise study type: two answers to one context, judged in both orders (position bias)."""
