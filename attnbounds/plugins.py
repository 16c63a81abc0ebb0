"""Loading user objects by spec: ``"package.module:object"``, ``"path/to/file.py:object"``,
``"path/to/file.py"`` and entry points. Used by the claim and normalizer registries.

>>> load_object("attnbounds.claims:PAPER")
'2508.17821'
>>> load_object("attnbounds.claims:NOPE")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
attnbounds.plugins.PluginNotFound: spec: module 'attnbounds.claims' has no attribute 'NOPE'
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any

__all__ = ["PluginNotFound", "PluginError", "import_module_or_file", "load_object", "entry_point"]


class PluginNotFound(LookupError):
    """The spec names a module, file, attribute or entry point that does not exist."""


class PluginError(ImportError):
    """The plug-in exists but raised while it was imported or loaded."""


_HELPERS: dict = {}  # a claim file's path -> the modules it imported from beside it: (name, file, sha256)


def _file_sha(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def _helpers_beside(here: str, names) -> list:
    """The modules of ``names`` loaded from files under the directory ``here`` (not this package)."""
    out = []
    for name in sorted(names):
        f = getattr(sys.modules.get(name), "__file__", None)
        if not f or name.split(".")[0] == "attnbounds":
            continue
        f = os.path.abspath(f)
        try:
            inside = os.path.commonpath([f, here]) == here
        except ValueError:  # another drive
            inside = False
        if inside:
            out.append((name, f, _file_sha(f)))
    return out


def import_module_or_file(module_name: str, *, what: str = "spec") -> ModuleType:
    """Import ``pkg.module`` (also from the current directory, as ``python -m`` would) or a
    ``path/to/file.py`` (imported once per path and content: an edited file is imported anew;
    with its own directory on the path while it runs, as ``python path/to/file.py`` would, so it
    can import the files beside it)."""
    if module_name.endswith(".py"):
        path = os.path.abspath(module_name)
        if not os.path.isfile(path):
            raise PluginNotFound(f"{what}: no such file {module_name!r}")
        with open(path, "rb") as fh:
            key = "_attnbounds_plugin_" + hashlib.sha256(path.encode() + fh.read()).hexdigest()[:16]
        helpers = _HELPERS.get(path, ())
        if key in sys.modules and all(_file_sha(f) == sha for _, f, sha in helpers):
            return sys.modules[key]
        for name, _, _ in helpers:  # a file beside it changed (or the file itself): its helpers are imported anew
            sys.modules.pop(name, None)  # (review 46: an edited helper module kept its old bound)
        sys.modules.pop(key, None)
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module  # dataclasses and pickling look the module up while it runs
        here = os.path.dirname(path)
        added = here not in sys.path
        if added:
            sys.path.insert(0, here)
        before = set(sys.modules)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[key]
            raise PluginError(f"{what}: importing {module_name!r} failed: {type(exc).__name__}: {exc}") from exc
        finally:
            if added and here in sys.path:
                sys.path.remove(here)
            _HELPERS[path] = _helpers_beside(here, set(sys.modules) - before - {key})
        return module
    if os.path.isdir(module_name):  # a trial: "cannot import module '/tmp'"
        raise PluginNotFound(f"{what}: {module_name!r} is a directory; name a .py file in it or a module")
    if os.path.isfile(module_name) and not module_name.endswith(".py"):  # "No module named 'notes'" for notes.txt
        raise PluginNotFound(f"{what}: {module_name!r} is not a .py file; name a Python file or a module")
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        cwd = os.getcwd()
        if exc.name and module_name.startswith(exc.name) and cwd not in sys.path and "" not in sys.path:
            sys.path.insert(0, cwd)
            try:
                return importlib.import_module(module_name)
            except ImportError:
                pass
            finally:
                sys.path.remove(cwd)
        raise PluginNotFound(f"{what}: cannot import module {module_name!r} ({exc})") from exc
    except ImportError as exc:
        raise PluginNotFound(f"{what}: cannot import module {module_name!r} ({exc})") from exc
    except Exception as exc:
        raise PluginError(f"{what}: importing {module_name!r} failed: {type(exc).__name__}: {exc}") from exc


def load_object(spec: str, *, what: str = "spec") -> Any:
    """The object a spec names: ``"module:attr.path"``, ``"file.py:attr"``, or a whole
    module (``"file.py"`` or ``"module"`` without a colon)."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"{what}: expected 'module:object' or 'path.py', got {spec!r}")
    if ":" in spec and not (os.name == "nt" and len(spec) > 1 and spec[1] == ":" and spec.count(":") == 1):
        module_name, _, attr = spec.rpartition(":")
    else:
        module_name, attr = spec, ""
    module = import_module_or_file(module_name, what=what)
    obj: Any = module
    for part in filter(None, attr.split(".")):
        if not hasattr(obj, part):
            raise PluginNotFound(f"{what}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def entry_point(group: str, name: str) -> Any | None:
    """The loaded entry point ``name`` of ``group``, or None when there is none."""
    for ep in importlib.metadata.entry_points(group=group):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as exc:  # a broken plug-in must not look like a missing one
                raise PluginError(f"entry point {name!r} ({ep.value}) failed to load: {exc}") from exc
    return None
