"""Every view publishes on a warehouse no stage has written yet, and answers with no rows."""

from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging import store


def test_every_view_publishes_before_any_study(settings: Settings) -> None:
    store.ensure_store(settings.store_dir)
    names = warehouse.publish_views(settings)
    assert len(names) == len(warehouse.view_files())
    for name in names:  # empty, but for the sort orders (dim_), which come from files
        n = warehouse.query(settings, f"select count(*) as n from {name}")["n"][0]
        assert (n > 0) if name.startswith("dim_") else (n == 0), name
