"""Encoding task payloads for storage: JSON by default, msgpack when installed."""

import json

from .errors import PayloadError
from .i18n import gettext as _

try:
    import msgpack
except ImportError:  # pragma: no cover
    msgpack = None


class JSONSerializer:
    content_type = "application/json"

    def dumps(self, task):
        return json.dumps({"id": task.id, "name": task.name, "payload": task.payload}).encode()

    def loads(self, data):
        return json.loads(data)


class MsgpackSerializer:
    content_type = "application/msgpack"

    def dumps(self, task):
        if msgpack is None:
            raise PayloadError("msgpack is not installed")
        return msgpack.packb({"id": task.id, "name": task.name, "payload": task.payload})

    def loads(self, data):
        return msgpack.unpackb(data)


def decode_task(serializer, data):
    fields = serializer.loads(data)
    for key in ("id", "name", "payload"):
        if key not in fields:
            raise PayloadError(_("task payload is missing the %(key)r key") % {"key": key})
    return fields["id"], fields["name"], fields["payload"]


SERIALIZERS = {"json": JSONSerializer, "msgpack": MsgpackSerializer}
