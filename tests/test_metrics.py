"""The request metrics, written to Prometheus in batches, read as if written one by one."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Histogram

from service.logs import _observe_all


def test_a_batch_of_durations_is_observed_as_each_one_would_be() -> None:
    registry = CollectorRegistry()
    one_by_one = Histogram("one_by_one", "", registry=registry)
    batched = Histogram("batched", "", registry=registry)
    values = [0.0, 0.004, 0.005, 0.0051, 0.3, 2.5, 7.5, 9.99, 10.0, 42.0]  # bounds and between
    for value in values:
        one_by_one.observe(value)
    _observe_all(batched, values)

    def samples(name: str) -> list[tuple[str, dict[str, str], float]]:
        [metric] = [m for m in registry.collect() if m.name == name]
        return [
            (s.name.removeprefix(name), s.labels, s.value)
            for s in metric.samples
            if not s.name.endswith("_created")
        ]

    assert samples("batched") == samples("one_by_one")
    assert ("_count", {}, len(values)) in samples("batched")
