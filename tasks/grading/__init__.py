"""Reference-guided grading: the judge grades a candidate answer 1–5 against a reference answer."""
