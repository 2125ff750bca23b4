#!/bin/sh
# odd_names.sh VMRUN XSD PROGRAM -- the tptp agent's trace of a thread named
# with markup characters, a tab, a control character, a byte that is not
# UTF-8 and an e-acute (odd_names.gcl) validates against the schema, and
# its threadName reads back as the name with each bad byte replaced by
# U+FFFD and the rest as it was.
set -eu
vmrun=$1 xsd=$2 program=$3
"$vmrun" --vmpi-strict -agentlib:tptp=file=odd.xml "$program" >/dev/null
xmllint --noout --schema "$xsd" odd.xml
python3 - <<'PY'
import sys
import xml.etree.ElementTree as ET
names = [e.get("threadName") for e in ET.parse("odd.xml").getroot() if e.tag == "threadStart"]
expected = "<w&'\"1>\t\ufffd\ufffd\u00e9-end"
if names != ["main", expected]:
    sys.exit("odd_names: threadStart names %r, expected %r" % (names, ["main", expected]))
PY
