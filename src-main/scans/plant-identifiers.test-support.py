# Test support for deid-planted.test.ts, run with Debian's /usr/bin/python3 and pydicom.
#
# Usage: plant-identifiers.test-support.py <table.json> <base.dcm> <out.dcm> [key=value...]
#
# Copies a real CT slice and puts a distinct, searchable value into EVERY attribute of PS3.15
# Table E.1-1 (given as JSON: [[tag, action, name], ...], the generated table the app uses) that
# can hold one: a value of the attribute's own VR (pydicom's dictionary; LO for tags newer than
# it), a nested item with identifying values for each sequence, plus the repeating-group rows
# (curves, overlays), a private block, a private sequence, a public sequence the table does not
# list (Procedure Code Sequence, with free text and nested table attributes) and a public tag no
# dictionary knows. Extra key=value arguments set top-level keywords afterwards (e.g.
# BurnedInAnnotation=YES). Prints JSON: what was planted and the searchable values.
import datetime
import json
import sys

import pydicom
from pydicom.datadict import dictionary_has_tag, dictionary_VR
from pydicom.dataelem import DataElement
from pydicom.dataset import Dataset
from pydicom.sequence import Sequence
from pydicom.tag import Tag

table_path, base, out = sys.argv[1:4]
extra = dict(a.split('=', 1) for a in sys.argv[4:])
table = json.load(open(table_path))

ds = pydicom.dcmread(base)
counter = [0]
searchable = []  # text whose bytes must not appear in the package
planted = []  # [tag, vr, repr] of every top-level plant, for the structural check


def token():
    counter[0] += 1
    return 'PLANT%04d' % counter[0]


def uid():
    counter[0] += 1
    return '1.2.826.0.1.3680043.9.7777.%06d' % counter[0]


def value_for(vr):
    """A distinct value of the VR; the searchable part goes into `searchable`."""
    vr = vr.split(' or ')[0]
    if vr in ('LO', 'SH', 'CS', 'AE', 'ST', 'LT', 'UT', 'UC'):
        t = token()
        searchable.append(t)
        return t
    if vr == 'PN':
        t = token()
        searchable.append(t)
        return t + '^Person'
    if vr == 'UR':
        t = token()
        searchable.append(t)
        return 'https://example.org/' + t
    if vr == 'UI':
        u = uid()
        searchable.append(u)
        return u
    if vr in ('DA', 'DT', 'TM'):
        counter[0] += 1
        d = datetime.date(2040, 1, 1) + datetime.timedelta(days=counter[0])
        frac = '%06d' % counter[0]
        v = {'DA': d.strftime('%Y%m%d'), 'TM': '101010.' + frac, 'DT': d.strftime('%Y%m%d') + '101010.' + frac}[vr]
        searchable.append(v)
        return v
    if vr == 'AS':
        counter[0] += 1
        v = '%03dW' % (counter[0] % 1000)
        return v  # 4 characters: checked structurally only, too short to search bytes for
    if vr == 'DS':
        counter[0] += 1
        v = '88%05d.77' % counter[0]
        searchable.append(v)
        return v
    if vr == 'IS':
        counter[0] += 1
        v = '77%05d' % counter[0]
        searchable.append(v)
        return v
    if vr in ('OB', 'OW', 'OF', 'OD', 'OL', 'OV', 'UN'):
        t = token()
        searchable.append(t)
        return (t + '-BYTES!').encode('ascii')  # 16 bytes: a multiple of every width
    if vr in ('US', 'SS'):
        counter[0] += 1
        return 4000 + counter[0] % 20000
    if vr in ('UL', 'SL', 'UV', 'SV'):
        counter[0] += 1
        return 7000000 + counter[0]
    if vr in ('FL', 'FD'):
        counter[0] += 1
        return 1234.5 + counter[0]
    if vr == 'AT':
        return 0x00100010
    raise ValueError('no value for VR ' + vr)


def identifying_item(depth=0):
    """A sequence item full of identifying values, with a nested one and a private element."""
    item = Dataset()
    item.CodeValue = value_for('SH')
    item.CodingSchemeDesignator = '99PLT'
    item.CodeMeaning = value_for('LO')
    item.ReferencedSOPInstanceUID = value_for('UI')
    item.add(DataElement(0x0040A123, 'PN', value_for('PN')))  # Person Name, table D
    item.add(DataElement(0x00100010, 'PN', value_for('PN')))  # Patient's Name, table Z
    item.add(DataElement(0x00080080, 'LO', value_for('LO')))  # Institution Name, table X/Z/D
    block = item.private_block(0x0029, 'PLANT CREATOR', create=True)
    block.add_new(0x01, 'LO', value_for('LO'))
    if depth == 0:
        item.add(DataElement(0x0040A730, 'SQ', Sequence([identifying_item(1)])))  # Content Sequence
    return item


def plant(tag, vr):
    if vr.split(' or ')[0] == 'SQ':
        ds.add(DataElement(tag, 'SQ', Sequence([identifying_item()])))
        planted.append([tag, 'SQ', 'sequence'])
        return
    v = value_for(vr)
    ds.add(DataElement(tag, vr.split(' or ')[0], v))
    planted.append([tag, vr.split(' or ')[0], v if isinstance(v, (str, int, float)) else v.decode('ascii')])


for tag, action, name in table:
    group = tag >> 16
    if group in (0x0000, 0x0002):
        continue  # command and meta groups are not part of a stored data set
    vr = dictionary_VR(tag) if dictionary_has_tag(tag) else 'LO'
    if vr == 'NONE':
        continue
    plant(tag, vr)

# Repeating-group rows: curve data (50xx,xxxx), overlay data and comments (60xx,3000/4000).
plant(0x50000022, 'LO')  # Curve Description
plant(0x50003000, 'OB')  # Curve Data
plant(0x60004000, 'LT')  # Overlay Comments
plant(0x60023000, 'OW')  # Overlay Data, second overlay group

# Outside the table: a private block and a private sequence, a public sequence of codes with free
# text and nested table attributes, free text in an attribute the table does not list, and a
# public (even) tag no dictionary knows.
block = ds.private_block(0x0011, 'ACME CLINIC', create=True)
block.add_new(0x01, 'LO', value_for('LO'))
block.add_new(0x02, 'SQ', Sequence([identifying_item()]))
ds.ProcedureCodeSequence = Sequence([identifying_item()])
ds.ConvolutionKernel = value_for('SH')
unknown = Tag(0x0042, 0x0ABC)
assert not dictionary_has_tag(unknown)
ds.add(DataElement(unknown, 'LO', value_for('LO')))

for k, v in extra.items():
    setattr(ds, k, v)
ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
ds.save_as(out, write_like_original=False)
print(json.dumps({'planted': planted, 'searchable': searchable}))
