"""Translation of user-facing messages (gettext catalogs under locale/)."""

import gettext as _gettext
import os

_LOCALE_DIR = os.path.join(os.path.dirname(__file__), "locale")
_translation = _gettext.translation("tidepool", _LOCALE_DIR, fallback=True)


def gettext(message):
    return _translation.gettext(message)


def set_language(lang):
    global _translation
    _translation = _gettext.translation("tidepool", _LOCALE_DIR, languages=[lang], fallback=True)
