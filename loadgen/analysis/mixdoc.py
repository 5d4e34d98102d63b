"""A mixed run's result document read back for the model (mixmodel.py): the spec as run, and
where its scheduled executions started."""
from __future__ import annotations

import dataclasses

from ..workload import mix as mixspec


def spec_of(run: dict) -> mixspec.MixSpec:
    """The spec as run (workload.mix), parsed back with the file checks."""
    doc = dict(((run.get("workload") or {}).get("mix")) or {})
    source = doc.pop("source", "") or "<run>"
    doc.pop("description", None)
    # to_dict writes every sequence stream's keys, the file refuses them where they mean nothing
    keyless = {"keys", *(f.name for f in dataclasses.fields(mixspec.KeySpec) if f.name != "name")}
    doc["streams"] = [{k: v for k, v in st.items() if k not in keyless} if st.get("op") in ("insert", "scan") else st
                      for st in doc.get("streams") or []]
    from ..workload.mixfile import from_document

    spec = from_document(doc, source, _base(source))
    return dataclasses.replace(spec, source=source)


def _base(source: str):
    from pathlib import Path

    return Path(source).parent if source and not source.startswith("preset ") else Path.cwd()


def scheduled_positions(run: dict, spec: mixspec.MixSpec) -> dict[int, list[int]]:
    """Where each scheduled execution started in the op sequence (result.streams[name].executions)."""
    out: dict[int, list[int]] = {}
    streams = (run.get("result") or {}).get("streams") or {}
    for i in spec.scheduled:
        for ex in (streams.get(spec.streams[i].name) or {}).get("executions") or []:
            out.setdefault(int(ex.get("ops_before") or 0), []).append(i)
    return out
