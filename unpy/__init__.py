"""unpy: compile annotated Python/NumPy loops to C++/OpenMP, and @gpu nests to OpenCL."""
__version__ = "0.1.0"
