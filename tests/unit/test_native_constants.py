"""The constants the Python side shares with the C core are read from the extension, not restated
(issue #19 item 4): the mix trace's flag bits (native/lrusim/mix.h), --pipeline's bound
(native/pipeline.h) and the mix driver's parameter codes (native/mixconn.h, checked against
workload/statements.py, which the python driver uses without C)."""
from __future__ import annotations

import pytest

from loadgen import native
from loadgen.analysis import mixpages
from loadgen.drivers import mixnative
from loadgen.drivers.drive import check_pipeline
from loadgen.errors import UsageError
from loadgen.workload import statements

from ..conftest import require


def test_the_mix_model_flags_its_references_with_the_kernels_bits():
    flags = native.mix_flags()
    assert tuple(flags) == (1, 2, 4, 8, 16, 32)  # MIX_MOVE, MIX_WRITE, MIX_OP, MIX_NEW, MIX_BUFFER, MIX_PURGE
    assert (mixpages.MOVE, mixpages.WRITE, mixpages.OP, mixpages.NEW, mixpages.BUFFER,
            mixpages.PURGE) == tuple(flags)


def test_the_pipeline_bound_is_the_extensions():
    top = native.pipeline_max_depth()
    assert top == 4096  # PL_MAX_DEPTH
    assert check_pipeline(top, "native") == top
    with pytest.raises(UsageError, match=f"must be 1 to {top}"):
        check_pipeline(top + 1, "native")


def test_the_mix_driver_reads_the_statements_parameter_codes():
    ext = native.extension()
    if not hasattr(ext, "mix_open"):
        require("LOADGEN_REQUIRE_NATIVE_DRIVER", "no native driver in this build", "built without libmariadb")
    assert (ext.MIX_PARAM_KEY, ext.MIX_PARAM_END, ext.MIX_PARAM_OP, ext.MIX_PARAM_RAW) == (
        statements.PARAM_KEY, statements.PARAM_END, statements.PARAM_OP, statements.PARAM_RAW)
    assert mixnative.available()
