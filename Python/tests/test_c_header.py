"""The C interface's header (Python/Sources/CVisage/include/visage.h) is the contract: Swift's
exports are compiled against its prototypes, and here the package's ctypes declarations are held
to it: the version, every enum's values, the image struct's fields, and every function's
argument and return types (visage_command.py's own declaration too)."""

import ctypes
import re

import pytest

import visage_command
from conftest import ROOT
from visage import _native

HEADER = (ROOT / "Python" / "Sources" / "CVisage" / "include" / "visage.h").read_text()
# The header without comments or nullability, one declaration a line.
CODE = re.sub(r"/\*.*?\*/", "", HEADER, flags=re.S).replace("_Nullable", "").replace("_Nonnull", "")


def enum(name):
    """The constants of the header's enum `name`, by name."""
    body = re.search(r"typedef enum %s : int32_t \{(.*?)\}" % name, CODE, re.S).group(1)
    return {k: int(v) for k, v in re.findall(r"(\w+)\s*=\s*(\d+)", body)}


@pytest.mark.parametrize(
    "header_enum, prefix, python_enum",
    [
        ("visage_status", "VISAGE_", _native.Status),
        ("visage_running_mode", "VISAGE_", _native.Mode),
        ("visage_image_format", "VISAGE_", _native.PixelFormat),
        ("visage_decoder", "VISAGE_DECODER_", _native.Decoder),
        ("visage_field", "VISAGE_FIELD_", _native.Field),
    ],
)
def test_enums_are_the_headers(header_enum, prefix, python_enum):
    constants = enum(header_enum)
    assert len(constants) >= 2
    assert {k[len(prefix):]: v for k, v in constants.items()} == {m.name: m.value for m in python_enum}


def test_the_version_is_the_headers_and_the_librarys():
    version = int(re.search(r"#define VISAGE_ABI_VERSION (\d+)", CODE).group(1))
    assert version == _native.ABI_VERSION == _native.lib.visage_abi_version()


# C types as ctypes declares them: a pointer to a character string is `c_char_p` where the
# engine reads it, and a plain pointer where the engine hands over memory to free.
SCALARS = {"int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64, "double": ctypes.c_double, "float": ctypes.c_float}
ENUMS = {"visage_status", "visage_running_mode", "visage_image_format", "visage_decoder", "visage_field"}


def ctype(text, returned=False, name=""):
    """The ctypes type of a C type as the header writes it."""
    text = " ".join(text.replace("const", "").split())
    stars = text.count("*")
    base = text.replace("*", "").strip()
    if base in ENUMS:
        base = "int32_t"
    if stars == 0:
        return None if base == "void" else SCALARS[base]
    if base == "visage_live_stream_callback":
        raise AssertionError("a callback is not a pointer")
    if stars == 1:
        if base == "char":
            return ctypes.c_void_p if returned else ctypes.c_char_p
        if base == "void":
            return ctypes.c_void_p
        if base == "visage_image":
            return ctypes.POINTER(_native.VisageImage)
        return ctypes.POINTER(SCALARS[base])
    assert stars == 2, text
    # An out-pointer to memory the engine allocates (an error's text, freed with visage_free),
    # or the command line's argv, strings the engine reads.
    return ctypes.POINTER(ctypes.c_char_p) if name == "argv" else ctypes.POINTER(ctypes.c_void_p)


def prototypes():
    """The header's functions: name to (return type, argument types)."""
    found = {}
    for returned, name, parameters in re.findall(r"^([\w ]+?\*?)\s*(visage_\w+)\(([^;]*?)\);", CODE, re.M | re.S):
        arguments = [] if parameters.strip() == "void" else [" ".join(p.split()) for p in parameters.split(",")]
        found[name] = (returned.strip(), [tuple(a.rsplit(" ", 1)) for a in arguments])
    return found


def same_type(declared, expected):
    if declared is expected:
        return True
    # ctypes makes one POINTER type per target type, and c_void_p stands for any data pointer.
    if isinstance(declared, type) and isinstance(expected, type) and issubclass(declared, ctypes._Pointer):
        return issubclass(expected, ctypes._Pointer) and declared._type_ is expected._type_
    return False


def test_every_function_is_declared_as_the_header_declares_it():
    found = prototypes()
    assert len(found) == 16, sorted(found)
    for name, (returned, arguments) in found.items():
        function = getattr(_native.lib, name)
        if name == "visage_command_line":
            visage_command_signature = (ctypes.c_int32, [ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p)])
            function.restype, function.argtypes = visage_command_signature
        assert function.restype is ctype(returned, returned=True), name
        assert len(function.argtypes) == len(arguments), f"{name}: {function.argtypes} vs {arguments}"
        for i, (declared, (argument, label)) in enumerate(zip(function.argtypes, arguments)):
            if argument == "visage_live_stream_callback":
                assert declared is _native.LIVE_STREAM_CALLBACK, name
                continue
            assert same_type(declared, ctype(argument, name=label)), f"{name} argument {label}: {declared} for {argument}"


def test_the_command_line_entry_is_declared_as_the_header_declares_it():
    source = (ROOT / "Python" / "visage_command.py").read_text()
    assert "run.argtypes = [ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p)]" in source
    assert prototypes()["visage_command_line"] == ("int32_t", [("int32_t", "argc"), ("char * *", "argv")])
    assert visage_command.main


def test_the_image_struct_is_the_headers():
    body = re.search(r"typedef struct visage_image \{(.*?)\}", CODE, re.S).group(1)
    fields = [line.strip().rstrip(";") for line in body.strip().splitlines()]
    expected = [(name, ctype(kind)) for kind, name in (" ".join(f.split()).rsplit(" ", 1) for f in fields)]
    assert [(n, t) for n, t in _native.VisageImage._fields_] == expected
    live = re.search(r"typedef void \(\*visage_live_stream_callback\)\((.*?)\);", CODE, re.S).group(1)
    assert [" ".join(p.split()) for p in live.split(",")] == [
        "void * context", "void * result", "int64_t timestamp_ms", "const char * error",
    ]  # fmt: skip
    assert _native.LIVE_STREAM_CALLBACK._argtypes_ == (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p)
