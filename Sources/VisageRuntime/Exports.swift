@_exported import VisageKernels
