"""The lean reference for bench/local-job.bench.ts: the same skull surface as `scan2mesh submit --mesh
skull --format stl` with Debian's python3-pydicom and python3-vtk9, and nothing else.

usage: /usr/bin/python3 bench/local-job-vtk.py SERIES_DIR OUT.stl
Prints one JSON line with the stage times (ms) measured inside the process; the caller times the
whole process (interpreter and library start-up included).
"""
import json
import os
import sys
import time

t0 = time.perf_counter()
import numpy as np
import pydicom
import vtk
from vtk.util import numpy_support

stages = {'import': (time.perf_counter() - t0) * 1000}
src, out = sys.argv[1], sys.argv[2]


def lap(name, since):
    now = time.perf_counter()
    stages[name] = (now - since) * 1000
    return now


t = time.perf_counter()
slices = [pydicom.dcmread(os.path.join(src, n)) for n in sorted(os.listdir(src))]
slices.sort(key=lambda s: float(s.ImagePositionPatient[2]))
first = slices[0]
slope, intercept = float(getattr(first, 'RescaleSlope', 1)), float(getattr(first, 'RescaleIntercept', 0))
vol = np.stack([s.pixel_array for s in slices]).astype(np.float32) * slope + intercept
dz = float(slices[1].ImagePositionPatient[2]) - float(slices[0].ImagePositionPatient[2])
dy, dx = (float(v) for v in first.PixelSpacing)
t = lap('read', t)

img = vtk.vtkImageData()
img.SetDimensions(vol.shape[2], vol.shape[1], vol.shape[0])
img.SetSpacing(dx, dy, dz)
img.GetPointData().SetScalars(numpy_support.numpy_to_vtk(vol.ravel(), deep=False))
fe = vtk.vtkFlyingEdges3D()
fe.SetInputData(img)
fe.SetValue(0, 300)
fe.ComputeNormalsOff()
fe.ComputeGradientsOff()
fe.Update()
t = lap('extract', t)

conn = vtk.vtkPolyDataConnectivityFilter()
conn.SetInputConnection(fe.GetOutputPort())
conn.SetExtractionModeToLargestRegion()
conn.Update()
t = lap('largestRegion', t)

smooth = vtk.vtkWindowedSincPolyDataFilter()
smooth.SetInputConnection(conn.GetOutputPort())
smooth.SetNumberOfIterations(5)
smooth.NormalizeCoordinatesOn()
smooth.Update()
t = lap('smooth', t)

writer = vtk.vtkSTLWriter()
writer.SetInputConnection(smooth.GetOutputPort())
writer.SetFileTypeToBinary()
writer.SetFileName(out)
writer.Write()
t = lap('write', t)

print(json.dumps({'stagesMs': {k: round(v) for k, v in stages.items()},
                  'triangles': smooth.GetOutput().GetNumberOfPolys(), 'bytes': os.path.getsize(out),
                  'vtk': vtk.vtkVersion.GetVTKVersion(), 'pydicom': pydicom.__version__}))
