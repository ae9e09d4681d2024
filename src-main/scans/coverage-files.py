# Derives test files for DICOM coverage (dicom-coverage.test.ts) from the real fixtures, with pydicom,
# and writes pydicom's own pixel values beside each as <name>.ref (int32, little endian, row major).
# Usage: /usr/bin/python3 coverage-files.py FIXTURES_DICOM_DIR OUT_DIR; prints the shapes of the
# references and the paths of pydicom's own test files used, as JSON.
import sys, os, io, json, copy
import numpy as np
import pydicom
from pydicom.encaps import encapsulate, generate_pixel_data_frame
from pydicom.filebase import DicomFileLike
from pydicom.filewriter import write_dataset
from pydicom.uid import generate_uid
fx, out = sys.argv[1], sys.argv[2]
refs = {}
def ref(name, arr):
    np.ascontiguousarray(arr, dtype='<i4').tofile(os.path.join(out, name + '.ref'))
    refs[name] = list(arr.shape)

# YBR from a real human CT slice: an 8-bit grey image (HU / 16 + 64) stored as colour.
src = pydicom.dcmread(os.path.join(fx, 'ct-human-cranium-teeth', 'slice050.dcm'))
hu = src.pixel_array.astype(np.int32) * int(src.RescaleSlope) + int(src.RescaleIntercept)
y = np.clip(hu // 16 + 64, 0, 255).astype(np.uint8)
for photometric in ('YBR_FULL_422', 'YBR_FULL'):
    ds = copy.deepcopy(src)
    ds.SOPInstanceUID = generate_uid()
    ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
    ds.SamplesPerPixel = 3
    ds.PhotometricInterpretation = photometric
    ds.PlanarConfiguration = 0
    ds.BitsAllocated = 8; ds.BitsStored = 8; ds.HighBit = 7; ds.PixelRepresentation = 0
    ds.RescaleSlope = 16; ds.RescaleIntercept = -1024
    if photometric == 'YBR_FULL_422':
        pairs = y.reshape(-1, 2)
        data = np.empty((pairs.shape[0], 4), np.uint8)
        data[:, 0:2] = pairs; data[:, 2] = 128; data[:, 3] = 128
    else:
        data = np.empty((y.size, 3), np.uint8)
        data[:, 0] = y.ravel(); data[:, 1] = 128; data[:, 2] = 128
    ds.PixelData = data.tobytes()
    ds['PixelData'].VR = 'OB'
    name = photometric.lower().replace('_', '-')
    ds.save_as(os.path.join(out, name + '.dcm'))
    back = pydicom.dcmread(os.path.join(out, name + '.dcm')).pixel_array
    ref(name, back[..., 0])  # pydicom's Y channel (no colour conversion)

# Explicit VR big endian without preamble or meta header, from a phantom slice.
ph = sorted(os.listdir(os.path.join(fx, 'ct-head-phantom-1mm')))[0]
ds = pydicom.dcmread(os.path.join(fx, 'ct-head-phantom-1mm', ph))
arr = ds.pixel_array
ds.PixelData = arr.astype('>u2').tobytes()
ds['PixelData'].VR = 'OW'
ds.is_little_endian = False; ds.is_implicit_VR = False
with open(os.path.join(out, 'be-no-meta.dcm'), 'wb') as f:
    fp = DicomFileLike(f); fp.is_little_endian = False; fp.is_implicit_VR = False
    write_dataset(fp, ds)
ref('be-no-meta', arr)

# JPEG 2000 whose codestream holds the bytes of a sequence delimiter (FFFE,E0DD): once in a comment
# (a valid codestream), once in the SIZ header as in pydicom-data's JPEG2000-embedded-sequence-delimiter.dcm.
j2k = pydicom.dcmread(os.path.join(fx, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm'))
cs = bytearray(next(generate_pixel_data_frame(j2k.PixelData)))
assert cs[:4] == b'\xff\x4f\xff\x51'
siz_end = 4 + int.from_bytes(cs[4:6], 'big')
payload = b'\xfe\xff\xdd\xe0\x00\x00\x00\x00'
com = b'\xff\x64' + (4 + len(payload)).to_bytes(2, 'big') + b'\x00\x00' + payload
with_com = bytes(cs[:siz_end]) + com + bytes(cs[siz_end:])
for name, stream in (('j2k-delimiter-in-comment', with_com), ('j2k-delimiter-in-siz', bytes(cs[:6]) + b'\xfe\xff\xdd\xe0' + bytes(cs[10:]))):
    ds = pydicom.dcmread(os.path.join(fx, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm'))
    ds.PixelData = encapsulate([stream])
    ds['PixelData'].is_undefined_length = True
    ds.save_as(os.path.join(out, name + '.dcm'))
back = pydicom.dcmread(os.path.join(out, 'j2k-delimiter-in-comment.dcm'))
ref('j2k-delimiter-in-comment', back.pixel_array)

# JPEG baseline (lossy, 8 bits) of the same human CT slice, encoded with Pillow (libjpeg).
from PIL import Image
buf = io.BytesIO(); Image.fromarray(y, 'L').save(buf, 'JPEG', quality=90)
ds = copy.deepcopy(src)
ds.SOPInstanceUID = generate_uid()
ds.file_meta.TransferSyntaxUID = '1.2.840.10008.1.2.4.50'
ds.BitsAllocated = 8; ds.BitsStored = 8; ds.HighBit = 7; ds.PixelRepresentation = 0
ds.RescaleSlope = 16; ds.RescaleIntercept = -1024
ds.LossyImageCompression = '01'
ds.PixelData = encapsulate([buf.getvalue()])
ds['PixelData'].is_undefined_length = True
ds.save_as(os.path.join(out, 'jpeg-baseline.dcm'))
ref('jpeg-baseline', pydicom.dcmread(os.path.join(out, 'jpeg-baseline.dcm')).pixel_array)
# pydicom's own test files, as Debian's pydicom ships them: used where they are, never copied.
from pydicom.data import get_testdata_file
files = {}
for name in ('SC_ybr_full_422_uncompressed.dcm', 'JPEG2000-embedded-sequence-delimiter.dcm',
             'ExplVR_BigEndNoMeta.dcm', 'JPEG-lossy.dcm'):
    files[name] = get_testdata_file(name)
ybr = pydicom.dcmread(files['SC_ybr_full_422_uncompressed.dcm'])
assert ybr.PhotometricInterpretation == 'YBR_FULL_422'
ref('SC_ybr_full_422_uncompressed', ybr.pixel_array[..., 0])  # Y, as read (no colour conversion)
print(json.dumps({'shapes': refs, 'pydicomFiles': files}))
