"""grading_scores: every planned grading call with its status and, when ok, the grade on 1–7 beside
the candidate's label on 1–7 (correct 7, wrong 1): the rating study's `scores`, so rating
metrics apply unchanged."""

from schemas.scores import Scores


class GradingScores(Scores):
    pass
