"""`mx.recordio`: read and write MXNet's RecordIO files (``.rec``, with an optional ``.idx``
index of ``key<TAB>offset`` lines), and pack labels and images into records.

The file format (dmlc-core's): each record is a little-endian uint32 magic 0xced7230a, a
uint32 ``cflag << 29 | length``, the payload, and zero padding to 4 bytes. A payload that
holds the magic at a 4-byte boundary is split there into parts (cflag 1 first, 2 middle,
3 last) with the magic left out; a whole record has cflag 0.

Example::

    w = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'w')
    w.write_idx(0, mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 0, 0), b'payload'))
    w.close()
    header, payload = mx.recordio.unpack(mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec',
                                                                        'r').read_idx(0))
"""
import io as _io
import numbers
import os
import struct
import threading
from collections import namedtuple

import numpy as np
from .base import MXNetError
from .ndarray.imdecode import _grey

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img",
           "unpack_img", "c_str", "check_call"]

_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LEN_MASK = (1 << 29) - 1


def c_str(string):
    """MXNet's C-string helper: the utf-8 bytes of `string` (no C library is involved).

    Example::

        mx.recordio.c_str("abc")   # b'abc'
    """
    return string.encode("utf-8") if isinstance(string, str) else bytes(string)


def check_call(ret):
    """MXNet's C-call checker; nothing calls C here, so it only accepts 0.

    Args:
        ret (int): the return code of a C call.

    Raises:
        MXNetError: ret is not 0.

    Example::

        mx.recordio.check_call(0)   # returns None; any other value raises MXNetError
    """
    if ret != 0:
        raise MXNetError(f"check_call: a call returned {ret}")


class MXRecordIO:
    """Sequential reader or writer of a RecordIO file.

    Args:
        uri: the file path.
        flag: 'r' to read, 'w' to write.

    Raises:
        ValueError: a flag other than 'r' or 'w'.
        FileNotFoundError: reading a missing file.

    Example::

        w = mx.recordio.MXRecordIO('d.rec', 'w'); w.write(b'abc'); w.close()
        mx.recordio.MXRecordIO('d.rec', 'r').read()   # b'abc'
    """

    def __init__(self, uri, flag):
        self.uri = uri.decode("utf-8") if isinstance(uri, bytes) else str(uri)
        self.flag = flag
        self.is_open = False
        self._file = None
        self.open()

    def open(self):
        """Open (or reopen, from the start) the file.

        Example::

            w = mx.recordio.MXRecordIO('d.rec', 'w'); w.write(b'abc'); w.close()
            r = mx.recordio.MXRecordIO('d.rec', 'r'); r.close()
            r.open(); r.read()   # b'abc'
        """
        if self.flag == "w":
            self._file = open(self.uri, "wb")
            self.writable = True
        elif self.flag == "r":
            if not os.path.exists(self.uri):
                raise FileNotFoundError(f"MXRecordIO: record file {self.uri!r} does not exist")
            self._file = open(self.uri, "rb")
            self.writable = False
        else:
            raise ValueError(f"MXRecordIO: flag must be 'r' or 'w', got {self.flag!r}")
        self.pid = os.getpid()
        self.is_open = True

    def __del__(self):
        self.close()

    def __getstate__(self):
        # a reader pickled into a DataLoader worker reopens its own file handle
        d = dict(self.__dict__)
        d["_file"] = None
        return d

    def __setstate__(self, d):
        self.__dict__ = d
        if d.get("is_open"):
            self.is_open = False
            self.open()

    def close(self):
        """Close the file (a writer flushes it).

        Example::

            w = mx.recordio.MXRecordIO('d.rec', 'w'); w.write(b'abc')
            w.close(); w.is_open   # False
        """
        if getattr(self, "is_open", False):
            self._file.close()
            self.is_open = False

    def reset(self):
        """Reopen at the first record.

        Example::

            w = mx.recordio.MXRecordIO('d.rec', 'w'); w.write(b'a'); w.write(b'b'); w.close()
            r = mx.recordio.MXRecordIO('d.rec', 'r'); r.read(); r.read()
            r.reset(); r.read()   # b'a'
        """
        self.close()
        self.open()

    def _need(self, writable, what):
        if not self.is_open:
            raise ValueError(f"MXRecordIO.{what}: {self.uri!r} is closed")
        if self.writable != writable:
            raise ValueError(f"MXRecordIO.{what}: {self.uri!r} was opened with flag "
                             f"{self.flag!r}")
        if self.pid != os.getpid():
            # a forked process (a DataLoader worker) shares the file offset with its
            # parent: a reader reopens its own file, a writer may not go on
            if writable:
                raise RuntimeError(f"MXRecordIO.{what}: {self.uri!r} was opened for writing "
                                   f"in process {self.pid}; write from that process only")
            self.reset()

    def write(self, buf):
        """Append one record (bytes).

        Args:
            buf (bytes): the record's content (less than 2**29 bytes).

        Example::

            w = mx.recordio.MXRecordIO('d.rec', 'w')
            w.write(b'first'); w.write(b'second'); w.close()
        """
        self._need(True, "write")
        buf = bytes(buf)
        if len(buf) >= 1 << 29:
            raise ValueError(f"MXRecordIO.write: a record holds < 2**29 bytes, got {len(buf)}")
        out = self._file
        start = 0
        for i in range(0, len(buf) - 3, 4):
            if buf[i:i + 4] == _MAGIC_BYTES:
                out.write(_MAGIC_BYTES)
                out.write(struct.pack("<I", ((1 if start == 0 else 2) << 29) | (i - start)))
                out.write(buf[start:i])
                start = i + 4
        out.write(_MAGIC_BYTES)
        out.write(struct.pack("<I", ((3 if start else 0) << 29) | (len(buf) - start)))
        out.write(buf[start:])
        out.write(b"\0" * (-len(buf) % 4))

    def read(self):
        """The next record (bytes), or None at the end of the file.

        Raises:
            ValueError: the file is not in RecordIO format at this position.

        Example::

            w = mx.recordio.MXRecordIO('d.rec', 'w'); w.write(b'abc'); w.close()
            r = mx.recordio.MXRecordIO('d.rec', 'r')
            r.read(), r.read()   # (b'abc', None)
        """
        self._need(False, "read")
        parts = []
        while True:
            head = self._file.read(8)
            if len(head) < 8:
                if parts or head:
                    raise ValueError(f"MXRecordIO.read: {self.uri!r} ends inside a record")
                return None
            magic, lrec = struct.unpack("<II", head)
            if magic != _MAGIC:
                raise ValueError(f"MXRecordIO.read: {self.uri!r} has no record magic at byte "
                                 f"{self._file.tell() - 8}; not a RecordIO file?")
            cflag, length = lrec >> 29, lrec & _LEN_MASK
            parts.append(self._file.read(length))
            self._file.read(-length % 4)
            if cflag in (0, 3):
                return b"".join(parts)
            parts.append(_MAGIC_BYTES)


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with an index file, for random access by key.

    Args:
        idx_path: the index file (``key<TAB>offset`` per line).
        uri: the record file.
        flag: 'r' or 'w'.
        key_type: the type of keys (default int).

    Raises:
        FileNotFoundError: reading a missing file.

    Example::

        w = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'w'); w.write_idx(0, b'abc')
        w.close()
        rec = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'r')
        rec.read_idx(rec.keys[0])   # b'abc'
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = idx_path
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        self._lock = threading.Lock()
        super().__init__(uri, flag)

    def open(self):
        """Open the record file and its index: reading loads every line (key, tab, offset) of the
        `.idx` file into `idx` and `keys`; writing starts both files anew.

        Raises:
            FileNotFoundError: reading, and the index file does not exist.

        Example::

            w = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'w'); w.write_idx(4, b'x')
            w.close()
            rec = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'r')   # calls open()
            rec.close(); rec.open(); rec.keys   # [4]
        """
        if self.flag == "r" and not os.path.exists(self.idx_path):
            raise FileNotFoundError(f"MXIndexedRecordIO: index file {self.idx_path!r} does "
                                    f"not exist")
        super().open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for number, line in enumerate(self.fidx, 1):
                fields = line.strip().split("\t")
                if len(fields) < 2:
                    continue
                try:
                    key, offset = self.key_type(fields[0]), int(fields[1])
                except ValueError:
                    self.close()
                    raise ValueError(f"MXIndexedRecordIO: {self.idx_path}, line {number}: "
                                     f"expected 'KEY<TAB>OFFSET' with an integer offset, got "
                                     f"{line.strip()[:80]!r}") from None
                self.idx[key] = offset
                self.keys.append(key)

    def close(self):
        """Close the record file and its index (nothing happens when they are closed).

        Example::

            w = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'w'); w.write_idx(0, b'x')
            w.close(); w.close()   # the second call does nothing
        """
        if getattr(self, "is_open", False):
            super().close()
            self.fidx.close()

    def __getstate__(self):
        d = super().__getstate__()
        d["fidx"] = None
        d["_lock"] = None
        return d

    def __setstate__(self, d):
        d["_lock"] = threading.Lock()
        super().__setstate__(d)

    def seek(self, idx):
        """Move the reader to the record of key `idx`.

        Raises:
            KeyError: an unknown key.

        Example::

            w = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'w')
            w.write_idx(3, b'abc'); w.write_idx(5, b'xy'); w.close()
            rec = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'r')
            rec.seek(5); rec.read()   # b'xy'
        """
        self._need(False, "seek")
        if idx not in self.idx:
            raise KeyError(f"MXIndexedRecordIO.seek: key {idx!r} is not in {self.idx_path!r}")
        self._file.seek(self.idx[idx])

    def tell(self):
        """The writer's current byte offset.

        Example::

            w = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'w')
            w.write_idx(0, b'abc'); w.tell()   # 12: 8 bytes of head, 3 of data, 1 of padding
        """
        self._need(True, "tell")
        return self._file.tell()

    def read_idx(self, idx):
        """The record of key `idx` (safe to call from several threads).

        Example::

            w = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'w')
            w.write_idx(3, b'abc'); w.write_idx(5, b'xy'); w.close()
            mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'r').read_idx(3)   # b'abc'
        """
        with self._lock:
            self.seek(idx)
            return self.read()

    def write_idx(self, idx, buf):
        """Append a record under key `idx`.

        Args:
            idx (int): the record's key, written to the index file with its offset.
            buf (bytes): the record's content.

        Example::

            w = mx.recordio.MXIndexedRecordIO('d.idx', 'd.rec', 'w')
            w.write_idx(7, b'abc'); w.close()
            w.keys   # [7]
        """
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """The header of a packed record: `flag` (the label count when the label is
an array), `label` (a float or an array of floats), `id` and `id2` (the record's id, high
bits in id2).

Example::

    h = mx.recordio.IRHeader(flag=0, label=2.0, id=7, id2=0)
    h.label   # 2.0
"""

_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """A record of `header` (an IRHeader or a 4-tuple) followed by the bytes `s`; an array
    label is stored as float32 values after the header.

    Example::

        rec = mx.recordio.pack(mx.recordio.IRHeader(0, [1, 2], 7, 0), b'img')
        mx.recordio.unpack(rec)[0].flag   # 2: the label holds two values
    """
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """``(IRHeader, payload bytes)`` of a packed record (an array label comes back as a
    float32 numpy array).

    Raises:
        ValueError: `s` is shorter than its header, or than the labels the header counts.

    Example::

        record = mx.recordio.pack(mx.recordio.IRHeader(0, 3.0, 1, 0), b'img')
        header, img_bytes = mx.recordio.unpack(record)   # header.label 3.0, b'img'
    """
    if len(s) < _IR_SIZE:
        raise ValueError(f"recordio.unpack: a packed record starts with a {_IR_SIZE}-byte "
                         f"header, got {len(s)} bytes")
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if header.flag * 4 > len(s):
            raise ValueError(f"recordio.unpack: the header counts {header.flag} float32 labels "
                             f"but only {len(s)} bytes follow it")
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("mx.recordio: encoding or decoding images needs Pillow "
                          "(pip install Pillow); MXNet uses OpenCV, which is not installed "
                          "here either") from None
    return Image


def _decode(buf, iscolor):
    """Decode image bytes to a uint8 HWC (or HW) numpy array in RGB order."""
    image = _pil().open(_io.BytesIO(bytes(buf)))
    if iscolor == 0:
        if image.format == "JPEG":
            image.draft("L", image.size)  # libjpeg's own grey, as OpenCV's decoder asks
        return _grey(image)
    if iscolor == 1 or image.mode not in ("L", "RGB", "RGBA"):
        return np.asarray(image.convert("RGB"))
    return np.asarray(image)


def unpack_img(s, iscolor=-1):
    """``(IRHeader, image)`` of a packed image record; the image is a uint8 numpy array in
    OpenCV's BGR channel order, as MXNet's (cv2-based) function returns.

    Args:
        iscolor: 1 color, 0 grayscale, -1 as stored.
        s (bytes): the packed record (as `pack_img` makes it).

    Example::

        img = np.zeros((4, 4, 3), np.uint8)
        record = mx.recordio.pack_img(mx.recordio.IRHeader(0, 1.0, 0, 0), img, img_fmt='.png')
        header, img = mx.recordio.unpack_img(record)   # img.shape (4, 4, 3)
    """
    header, s = unpack(s)
    img = _decode(s, iscolor)
    if img.ndim == 3:
        img = np.ascontiguousarray(img[:, :, 2::-1] if img.shape[2] >= 3 else img)
    return header, img


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """A record of `header` and `img` (a uint8 HWC array in BGR order, or HW) encoded as
    '.jpg' (with `quality`) or '.png'.

    Args:
        header (IRHeader): the record's header.
        img (numpy.ndarray): the uint8 image, (H, W, 3) in BGR order or (H, W).
        quality (int): the JPEG quality, 1-100 (default 95; unused for PNG).
        img_fmt (str): ``'.jpg'`` (default) or ``'.png'`` (case-insensitive; ``'.jpeg'``
            too).

    Raises:
        ValueError: an unsupported img_fmt.

    Example::

        img = np.zeros((4, 4, 3), np.uint8); img[..., 0] = 255   # blue, in BGR order
        record = mx.recordio.pack_img(mx.recordio.IRHeader(0, 3.0, 1, 0), img, img_fmt='.png')
    """

    fmt = img_fmt.upper()
    if fmt not in (".JPG", ".JPEG", ".PNG"):
        raise ValueError(f"pack_img: img_fmt must be '.jpg' or '.png', got {img_fmt!r}")
    img = np.asarray(img, dtype=np.uint8)
    if img.ndim == 3 and img.shape[2] == 3:
        img = img[:, :, ::-1]
    elif img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    buf = _io.BytesIO()
    image = _pil().fromarray(np.ascontiguousarray(img))
    if fmt == ".PNG":
        # OpenCV's PNG "quality" is the zlib compression level (0-9)
        image.save(buf, format="PNG", compress_level=min(max(int(quality), 0), 9))
    else:
        image.save(buf, format="JPEG", quality=int(quality))
    return pack(header, buf.getvalue())
