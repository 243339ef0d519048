"""The flow names the Prefect UI and deployments show stay those of the release before the one
study flow (ba77e2c had flows/<type>_study.py, one flow per type): the server learns a study
flow's name exactly as a run registers it (client.create_flow), and a `judgelab serve`
deployment's flow is the suite flow, as before."""

from __future__ import annotations

from prefect.client.orchestration import get_client
from prefect.settings import PREFECT_API_URL, temporary_settings

from flows.study import for_type
from flows.suite import study_suite
from tasks.study_types import TYPES

BEFORE = {  # the flow names of ba77e2c (flows/*_study.py), and the suite's
    "rating": "rating-study",
    "accuracy": "accuracy-study",
    "tone": "tone-study",
    "pairwise": "pairwise-study",
}


def test_the_server_shows_each_study_flow_and_the_deployment_flow_by_name(
    prefect_api: str,
) -> None:
    with (
        temporary_settings({PREFECT_API_URL: prefect_api}),
        get_client(sync_client=True) as client,
    ):
        shown = {name: client.read_flow(client.create_flow(for_type(name))).name for name in TYPES}
        assert {t: shown[t] for t in BEFORE} == BEFORE
        assert shown["grading"] == "grading-study"  # a type added since: named the same way
        deployment = study_suite.to_deployment(
            name="flow-names-test", parameters={"suite_file": "studies/all.toml"}
        )
        deployment_id = deployment.apply()
        try:
            flow_id = client.read_deployment(deployment_id).flow_id
            assert client.read_flow(flow_id).name == "study-suite"
        finally:
            client.delete_deployment(deployment_id)
