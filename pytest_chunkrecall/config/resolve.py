"""Turning a ``module:attr`` reference into the object it names."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from ..errors import USER_FAULTS, ChunkrecallError, describe, user_traceback
from .settings import did_you_mean


def resolve(reference: str, *, what: str, where: str | None) -> Any:
    """Import ``module:attr`` and return the attribute, or explain what is missing."""
    module_name, _, attr_path = reference.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise ChunkrecallError(
                f"{what} {reference!r}: no module named {exc.name!r}; check the spelling, "
                "install the package, or add its folder to pytest's 'pythonpath' ini option",
                where=where,
            ) from None
        raise ChunkrecallError(
            f"{what} {reference!r}: importing {module_name!r} failed:\n{user_traceback(exc)}",
            where=where,
        ) from None
    except USER_FAULTS as exc:
        raise ChunkrecallError(
            f"{what} {reference!r}: importing {module_name!r} failed:\n{user_traceback(exc)}",
            where=where,
        ) from None
    for part in attr_path.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            public = sorted(
                attribute
                for attribute in dir(target)
                if not attribute.startswith("_")
                and not inspect.ismodule(getattr(target, attribute, None))
            )
            shown = ", ".join(public[:12]) + (", …" if len(public) > 12 else "")
            raise ChunkrecallError(
                f"{what} {reference!r}: {module_name!r} has no attribute {part!r}"
                + did_you_mean(part, tuple(public))
                + (f" (it has: {shown})" if shown else ""),
                where=where,
            ) from None
        except USER_FAULTS as exc:  # a property or module __getattr__ that raised
            raise ChunkrecallError(
                f"{what} {reference!r}: reading {part!r} failed: {describe(exc)}", where=where
            ) from None
    return target
