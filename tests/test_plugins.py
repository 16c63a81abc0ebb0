"""Loading a user's file by path (``--claims file.py``, ``--normalizer file.py:obj``)."""

from __future__ import annotations

import sys

from attnbounds.plugins import load_object


def test_a_file_plugin_imports_the_files_beside_it_as_python_would(tmp_path):
    (tmp_path / "sibling_for_plugin_test.py").write_text("VALUE = 7\n")
    (tmp_path / "main_plugin.py").write_text("from sibling_for_plugin_test import VALUE\nDOUBLE = 2 * VALUE\n")
    before = list(sys.path)
    try:
        assert load_object(f"{tmp_path / 'main_plugin.py'}:DOUBLE") == 14
        assert sys.path == before  # its directory is on the path only while it runs
    finally:
        sys.modules.pop("sibling_for_plugin_test", None)
