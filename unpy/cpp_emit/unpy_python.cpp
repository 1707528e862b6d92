// The part of the runtime that talks to Python: argument conversion, results, the GPU hook,
// residency, Ctrl-C and the module's init. The build compiles it once per set of flags into its
// cache and links it into every module (unpy/cpp_emit/build.py), so that the units of compiled
// functions and the glue include neither pybind11 nor its templates (about 7 s of g++ each).
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include <pybind11/complex.h>
#include <cstring>
#include <unordered_map>

#include "unpy_glue.hpp"

namespace unpy {
namespace py = pybind11;

// --- errors, the GIL, logging ---------------------------------------------------------------

PyObject* python_error() {
    try {
        throw;
    } catch (const PythonErrorSet&) {
    } catch (py::error_already_set& e) {
        e.restore();
    } catch (const py::builtin_exception& e) {
        e.set_error();
    } catch (const Interrupted&) {
        return keyboard_interrupt();
    } catch (const Error& e) {
        PyObject* type = PyExc_RuntimeError;
        switch (e.kind) {
            case ErrorKind::zero_division: type = PyExc_ZeroDivisionError; break;
            case ErrorKind::index: type = PyExc_IndexError; break;
            case ErrorKind::value: type = PyExc_ValueError; break;
            case ErrorKind::overflow: type = PyExc_OverflowError; break;
            case ErrorKind::unbound_local: type = PyExc_UnboundLocalError; break;
            case ErrorKind::type_error: type = PyExc_TypeError; break;
            case ErrorKind::assertion: type = PyExc_AssertionError; break;
            case ErrorKind::linalg: {      // numpy.linalg.LinAlgError (a ValueError)
                try {
                    py::object error = py::module_::import("numpy.linalg").attr("LinAlgError");
                    PyErr_SetString(error.ptr(), e.what());
                    return nullptr;
                } catch (py::error_already_set& failed) {
                    failed.restore();
                    return nullptr;
                }
            }
            default: break;
        }
        PyErr_SetString(type, e.what());
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception in a compiled call");
    }
    return nullptr;
}

static void np_leave();
static void np_open(unsigned draws);

// (np_leave: Python code may draw from np.random, which takes the generator's lock.)
Gil::Gil() : state(int(PyGILState_Ensure())) { np_leave(); }
Gil::~Gil() { PyGILState_Release(PyGILState_STATE(state)); }
GilRelease::GilRelease(unsigned draws) : saved(nullptr) {
    if (draws) np_open(draws);
    saved = PyEval_SaveThread();
}
GilRelease::~GilRelease() {
    PyEval_RestoreThread(static_cast<PyThreadState*>(saved));
    np_leave();
}

void log_warning(const std::string& message) {
    try {
        py::module_::import("logging").attr("getLogger")("unpy").attr("warning")(message);
    } catch (...) {
        PyErr_Clear();
    }
}

void PyRef::release(PyObject* owned) { Py_DECREF(owned); }

// --- Ctrl-C (unpy_runtime.hpp) ----------------------------------------------------------------

// With the GIL: the process's state (made by the first module that asks), or nullptr.
static InterruptState* interrupt_state() {
    if (InterruptState* s = interrupt_state_ptr.load()) return s;
    static const char* name = "unpy.interrupt_state.1";
    PyObject* holder = PyImport_AddModule("_unpy_interrupt");    // borrowed; made if missing
    if (!holder) { PyErr_Clear(); return nullptr; }
    InterruptState* s = nullptr;
    if (PyObject* capsule = PyObject_GetAttrString(holder, "state")) {
        s = static_cast<InterruptState*>(PyCapsule_GetPointer(capsule, name));
        Py_DECREF(capsule);
        if (!s) { PyErr_Clear(); return nullptr; }
    } else {
        PyErr_Clear();
        auto made = std::make_unique<InterruptState>();
        try {
            made->handler = &on_sigint;
            made->getsignal = py::object(py::module_::import("_signal").attr("getsignal"))
                                  .release().ptr();
            py::module_ signal = py::module_::import("signal");
            made->default_handler = py::object(signal.attr("default_int_handler")).release().ptr();
            made->sigint = py::int_(SIGINT).release().ptr();
            made->main_thread = py::module_::import("threading").attr("main_thread")()
                                    .attr("ident").cast<unsigned long>();
            py::capsule capsule(made.get(), name);
            py::setattr(holder, "state", capsule);
        } catch (py::error_already_set&) {
            PyErr_Clear();
            return nullptr;
        }
        // Lives as long as the process (its handler may stay installed); the handler is the
        // one of the module that made the state, which every module installs.
        s = made.release();
    }
    interrupt_state_ptr.store(s);
    interrupt_flag.store(&s->flag);
    return s;
}

InterruptScope::InterruptScope() {
    s = interrupt_state();
    if (!s || PyThread_get_thread_ident() != s->main_thread) return;
    if (s->depth++ > 0) return;     // inside an armed call (a GPU hook's Python code)
    PyObject* handler = PyObject_CallOneArg(s->getsignal, s->sigint);
    if (!handler) { PyErr_Clear(); return; }
    const bool python_default = handler == s->default_handler;
    Py_DECREF(handler);
    if (!python_default) return;
    struct sigaction current;
    if (sigaction(SIGINT, nullptr, &current) != 0) return;
    if (!((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == s->handler)) {
        s->chained = current;       // before ours can run
        struct sigaction ours = current;
        ours.sa_sigaction = s->handler;
        ours.sa_flags = (current.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
        if (sigaction(SIGINT, &ours, nullptr) != 0) return;
    }
    s->flag.store(false);
    s->armed.store(true);
    armed = true;
}

InterruptScope::~InterruptScope() {
    if (!s || PyThread_get_thread_ident() != s->main_thread) return;
    --s->depth;
    if (!armed) return;
    s->armed.store(false);
    s->flag.store(false);
}

// --- arrays and scalars to Python -------------------------------------------------------------

// NumPy's dtype of kind and itemsize (native byte order) and its scalar type (np.float32, ...),
// made once per dtype (leaked like the hooks).
struct NumpyDtype {
    PyObject* dtype = nullptr;
    PyObject* type = nullptr;
};

static const NumpyDtype& numpy_dtype(char kind, int itemsize) {
    static NumpyDtype made[5][17];
    static const char* const kinds = "bfciu";
    NumpyDtype& d = made[std::strchr(kinds, kind) - kinds][itemsize];
    if (!d.dtype) {
        py::dtype dt(std::string(1, kind) + std::to_string(itemsize));
        d.type = py::object(dt.attr("type")).release().ptr();
        d.dtype = dt.release().ptr();
    }
    return d;
}

PyObject* array_object(const ArrayInfo& a) {
    if (a.pyobj && a.whole) return py::reinterpret_borrow<py::object>(a.pyobj).release().ptr();
    std::vector<py::ssize_t> shape(a.shape, a.shape + a.ndim), strides(a.ndim);
    for (int d = 0; d < a.ndim; ++d) strides[d] = a.strides[d] * py::ssize_t(a.itemsize);
    py::dtype dt = py::reinterpret_borrow<py::dtype>(numpy_dtype(a.kind, a.itemsize).dtype);
    if (a.pyobj)        // a view of a parameter: the parameter's array owns the memory
        return py::array(dt, shape, strides, a.data,
                         py::reinterpret_borrow<py::object>(a.pyobj)).release().ptr();
    auto* keep = new std::shared_ptr<void>(a.memory);
    py::capsule owner(keep, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
    return py::array(dt, shape, strides, a.data, owner).release().ptr();
}

// A C++ scalar of NumPy's kind and itemsize, read as a double, int64, uint64 or complex.
template <typename F>
static auto with_scalar(char kind, int itemsize, const void* v, F f) {
    switch (kind) {
        case 'b': return f(*static_cast<const bool*>(v));
        case 'f': return itemsize == 4 ? f(double(*static_cast<const float*>(v)))
                                       : f(*static_cast<const double*>(v));
        case 'c': return itemsize == 8
                      ? f(std::complex<double>(*static_cast<const std::complex<float>*>(v)))
                      : f(*static_cast<const std::complex<double>*>(v));
        case 'i': switch (itemsize) {
            case 1: return f(int64_t(*static_cast<const int8_t*>(v)));
            case 2: return f(int64_t(*static_cast<const int16_t*>(v)));
            case 4: return f(int64_t(*static_cast<const int32_t*>(v)));
            default: return f(*static_cast<const int64_t*>(v));
        }
        default: switch (itemsize) {
            case 1: return f(uint64_t(*static_cast<const uint8_t*>(v)));
            case 2: return f(uint64_t(*static_cast<const uint16_t*>(v)));
            case 4: return f(uint64_t(*static_cast<const uint32_t*>(v)));
            default: return f(*static_cast<const uint64_t*>(v));
        }
    }
}

static PyObject* python_number(bool v) { return PyBool_FromLong(v); }
static PyObject* python_number(double v) { return PyFloat_FromDouble(v); }
static PyObject* python_number(int64_t v) { return PyLong_FromLongLong(v); }
static PyObject* python_number(uint64_t v) { return PyLong_FromUnsignedLongLong(v); }
static PyObject* python_number(std::complex<double> v) {
    return PyComplex_FromDoubles(v.real(), v.imag());
}

PyObject* scalar_object(char kind, int itemsize, const void* value) {
    PyObject* o = with_scalar(kind, itemsize, value, [](auto v) { return python_number(v); });
    if (!o) throw py::error_already_set();
    return o;
}

// A NumPy scalar (np.float32, np.int32, ...) made as NumPy's PyArray_Scalar makes one: the
// type's tp_alloc, then the value into the object's `obval` (NumPy's Py<Type>ScalarObject:
// PyObject_HEAD, then the value), where the type's size says that it is laid out so; else
// nullptr. About 10 times faster than calling the type with a Python number (a list of 65536
// float32 returned: 12 ms -> 1-2 ms on the 2-core VM).
template <typename T>
static PyObject* numpy_scalar(PyObject* type_object, const void* value) {
    struct Layout { PyObject head; T obval; };
    auto* type = reinterpret_cast<PyTypeObject*>(type_object);
    if (type->tp_basicsize != Py_ssize_t(sizeof(Layout)) || type->tp_itemsize != 0)
        return nullptr;
    PyObject* o = type->tp_alloc(type, 0);
    if (!o) throw PythonErrorSet();
    std::memcpy(&reinterpret_cast<Layout*>(o)->obval, value, sizeof(T));
    return o;
}

static PyObject* numpy_scalar(char kind, int itemsize, const void* value) {
    PyObject* type = numpy_dtype(kind, itemsize).type;
    switch (kind) {
        case 'f': return itemsize == 4 ? numpy_scalar<float>(type, value) : nullptr;
        case 'c': return itemsize == 8 ? numpy_scalar<std::complex<float>>(type, value) : nullptr;
        case 'i': switch (itemsize) {
            case 1: return numpy_scalar<int8_t>(type, value);
            case 2: return numpy_scalar<int16_t>(type, value);
            case 4: return numpy_scalar<int32_t>(type, value);
            default: return nullptr;
        }
        case 'u': switch (itemsize) {
            case 1: return numpy_scalar<uint8_t>(type, value);
            case 2: return numpy_scalar<uint16_t>(type, value);
            case 4: return numpy_scalar<uint32_t>(type, value);
            default: return numpy_scalar<uint64_t>(type, value);
        }
        default: return nullptr;
    }
}

PyObject* scalar_result(char kind, int itemsize, const void* value) {
    const bool python_type = kind == 'b' || (kind == 'f' && itemsize == 8) ||
                             (kind == 'i' && itemsize == 8) || (kind == 'c' && itemsize == 16);
    if (!python_type) {
        if (PyObject* made = numpy_scalar(kind, itemsize, value)) return made;
    }
    PyObject* o = scalar_object(kind, itemsize, value);
    if (python_type) return o;
    py::object number = py::reinterpret_steal<py::object>(o);
    return py::handle(numpy_dtype(kind, itemsize).type)(number).release().ptr();
}

PyObject* text_object(const char* text) {
    PyObject* o = PyUnicode_FromString(text);
    if (!o) throw PythonErrorSet();
    return o;
}

void print_values(PyObject* values, const char* sep, const char* end, bool flush) {
    PyRef args(values);
    PyRef builtins(PyImport_ImportModule("builtins"));
    PyRef print(builtins.get() ? PyObject_GetAttrString(builtins.get(), "print") : nullptr);
    PyRef options(Py_BuildValue("{s:s,s:s,s:O}", "sep", sep, "end", end, "flush",
                                flush ? Py_True : Py_False));
    if (!print.get() || !options.get()) throw PythonErrorSet();
    PyRef done(PyObject_Call(print.get(), args.get(), options.get()));
    if (!done.get()) throw PythonErrorSet();
}

PyObject* call_python(const char* module, const char* name, PyObject* values,
                      const char* keywords, PyObject* size) {
    PyRef args(values), size_value(size);
    // The module as `import` finds it: sys.modules' (a lookup), else imported (the first call)
    PyRef module_name(PyUnicode_FromString(module));
    if (!module_name.get() || !args.get()) throw PythonErrorSet();
    PyObject* found = PyImport_GetModule(module_name.get());
    if (!found && PyErr_Occurred()) throw PythonErrorSet();
    PyRef imported(found ? found : PyImport_Import(module_name.get()));
    PyRef function(imported.get() ? PyObject_GetAttrString(imported.get(), name) : nullptr);
    if (!function.get()) throw PythonErrorSet();
    if (!*keywords && !size) {                  // (no keywords: no dict)
        PyObject* result = PyObject_Call(function.get(), args.get(), nullptr);
        if (!result) throw PythonErrorSet();
        return result;
    }
    PyRef options(PyDict_New());
    if (!options.get()) throw PythonErrorSet();
    // the last values are by name: split them off the tuple
    std::vector<std::string> names;
    for (const char* p = keywords; *p;) {
        const char* end = std::strchr(p, ',');
        names.emplace_back(p, end ? size_t(end - p) : std::strlen(p));
        p = end ? end + 1 : p + std::strlen(p);
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(args.get()), by_position = n - Py_ssize_t(names.size());
    for (size_t k = 0; k < names.size(); ++k)
        if (PyDict_SetItemString(options.get(), names[k].c_str(),
                                 PyTuple_GET_ITEM(args.get(), by_position + Py_ssize_t(k))) != 0)
            throw PythonErrorSet();
    if (size && PyDict_SetItemString(options.get(), "size", size) != 0) throw PythonErrorSet();
    PyRef positional(PyTuple_GetSlice(args.get(), 0, by_position));
    PyObject* result = positional.get()
        ? PyObject_Call(function.get(), positional.get(), options.get()) : nullptr;
    if (!result) throw PythonErrorSet();
    return result;
}

void assign_all(PyObject* target, PyObject* values) {
    PyRef t(target), v(values);
    if (!target || !values || PyObject_SetItem(target, Py_Ellipsis, values) != 0)
        throw PythonErrorSet();
}

PyObject* shape_tuple(const int64_t* shape, int n) {
    std::vector<PyObject*> items(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) items[size_t(k)] = PyLong_FromLongLong(shape[k]);
    return make_tuple(items.data(), n);
}

// `sequence` (a new tuple or list of n items, or null) holding `items` (stolen).
template <typename Set>
static PyObject* filled(PyObject* sequence, PyObject* const* items, int64_t n, Set set) {
    bool failed = !sequence;
    for (int64_t k = 0; k < n; ++k) {
        if (!items[k]) failed = true;
        else if (sequence) set(sequence, k, items[k]);
        else Py_DECREF(items[k]);
    }
    if (failed) {
        Py_XDECREF(sequence);
        throw PythonErrorSet();
    }
    return sequence;
}

PyObject* make_tuple(PyObject* const* items, int n) {
    return filled(PyTuple_New(n), items, n,
                  [](PyObject* t, int64_t k, PyObject* x) { PyTuple_SET_ITEM(t, k, x); });
}

PyObject* make_list(PyObject* const* items, int64_t n) {
    return filled(PyList_New(n), items, n,
                  [](PyObject* l, int64_t k, PyObject* x) { PyList_SET_ITEM(l, k, x); });
}

// --- np.random's draws without Python (unpy_runtime.hpp) --------------------------------------
// NumPy's legacy formulas as numpy/random/src/legacy/legacy-distributions.c and
// distributions.c write them (NumPy's legacy RandomState is frozen), compiled without fast-math
// and without contracting a*b + c into one rounding whatever the build's flags: a different
// last bit of r2 in legacy_gauss would change how many doubles it draws. np_setup checks each
// against NumPy's own function on private generators before any is used.

#if defined(__clang__)
#pragma float_control(precise, on, push)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("no-fast-math", "fp-contract=off")
#endif

namespace {

struct NpAug {                  // NumPy's aug_bitgen_t: the RandomState's cached Gaussian
    NpBitGen* bit_generator;
    int has_gauss;
    double gauss;
};

constexpr int NP_COUNT = int(NpDraw::count);
const char* const NP_NAMES[NP_COUNT] = {
    "random", "random_sample", "ranf", "sample", "rand", "standard_normal", "randn", "normal",
    "uniform", "standard_exponential", "exponential", "randint"};

double np_next_double(NpAug* s) { return s->bit_generator->next_double(s->bit_generator->state); }

// RandomState's Gaussians (legacy_gauss): Marsaglia's polar method, two at a time, a point
// (u, v) drawn in the square until it falls inside the unit circle (not at its centre); the
// second value is kept in the RandomState for the next call, which returns it instead.
double np_legacy_gauss(NpAug* s) {
    if (s->has_gauss) {
        const double kept = s->gauss;
        s->gauss = 0.0;
        s->has_gauss = 0;
        return kept;
    }
    for (;;) {
        const double u = 2.0 * np_next_double(s) - 1.0;
        const double v = 2.0 * np_next_double(s) - 1.0;
        const double radius2 = u * u + v * v;
        if (radius2 >= 1.0 || radius2 == 0.0) continue;
        const double factor = std::sqrt(-2.0 * std::log(radius2) / radius2);
        s->gauss = factor * u;
        s->has_gauss = 1;
        return factor * v;
    }
}

double np_legacy_standard_exponential(NpAug* s) { return -std::log(1.0 - np_next_double(s)); }

// A double's bits: the checks below in integers, which no -ffinite-math-only assumes away
// (std::isfinite, inlined from a header compiled with fast-math, is always true).
uint64_t np_bits(double x) {
    uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}
constexpr uint64_t NP_EXPONENT = 0x7FF0000000000000ULL, NP_SIGN = 0x8000000000000000ULL;
bool np_finite(double x) { return (np_bits(x) & NP_EXPONENT) != NP_EXPONENT; }
bool np_nan(double x) { return (np_bits(x) & ~NP_SIGN) > NP_EXPONENT; }

// NumPy's CONS_NON_NEGATIVE (check_constraint): a scale with its sign bit set raises, NaN not.
bool np_non_negative(double scale) { return np_nan(scale) || !(np_bits(scale) & NP_SIGN); }

// The draw of f (not randint) for parameters `a`, `b` that NumPy accepts (np_draws_ok).
double np_draw_on(NpAug* s, NpDraw f, double a, double b) {
    switch (f) {
        case NpDraw::standard_normal:
        case NpDraw::randn: return np_legacy_gauss(s);
        case NpDraw::normal: return a + b * np_legacy_gauss(s);          // legacy_normal
        case NpDraw::uniform: return a + (b - a) * np_next_double(s);   // random_uniform
        case NpDraw::standard_exponential: return np_legacy_standard_exponential(s);
        case NpDraw::exponential: return a * np_legacy_standard_exponential(s);
        default: return np_next_double(s);                               // random_sample
    }
}

// Whether NumPy draws f with these parameters (else it raises, drawing nothing).
bool np_draws_ok(NpDraw f, double a, double b) {
    switch (f) {
        case NpDraw::normal: return np_non_negative(b);
        case NpDraw::uniform: return np_finite(b - a);   // OverflowError: Range exceeds ...
        case NpDraw::exponential: return np_non_negative(a);
        default: return true;
    }
}

// randint(low, high) of NumPy's default dtype (int64): _rand_int64's closed interval [low,
// high - 1] drawn by random_bounded_uint64_fill with masked rejection, as RandomState does.
struct NpBounded {
    uint64_t off, rng, mask;
};
bool np_bounded(int64_t low, int64_t high, NpBounded& b) {
    if (!(low < high)) return false;            // ValueError: low >= high
    b.off = uint64_t(low);
    b.rng = uint64_t(high) - 1u - uint64_t(low);
    uint64_t mask = b.rng;                      // gen_mask: the smallest bit mask >= rng
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    b.mask = mask;
    return true;
}
int64_t np_bounded_draw(NpBitGen* g, const NpBounded& b) {
    if (b.rng == 0) return int64_t(b.off);
    if (b.rng <= 0xFFFFFFFFULL) {
        const uint32_t rng = uint32_t(b.rng), mask = uint32_t(b.mask);
        uint32_t val;
        while ((val = (g->next_uint32(g->state) & mask)) > rng) {}
        return int64_t(b.off + val);
    }
    if (b.rng == 0xFFFFFFFFFFFFFFFFULL) return int64_t(b.off + g->next_uint64(g->state));
    uint64_t val;
    while ((val = (g->next_uint64(g->state) & b.mask)) > b.rng) {}
    return int64_t(b.off + val);
}

// Each element of `out` (T's) in C order, from draw().
template <typename T, typename F>
void np_each(const NpOut& out, F draw) {
    T* const base = static_cast<T*>(out.data);
    int64_t n = 1;
    for (int d = 0; d < out.ndim; ++d) n *= out.shape[d];
    if (n == 0) return;
    bool contiguous = true;                     // (its elements one after the other)
    int64_t step = 1;
    for (int d = out.ndim - 1; d >= 0; --d) {
        if (out.shape[d] > 1 && out.strides[d] != step) contiguous = false;
        step *= out.shape[d];
    }
    if (contiguous) {
        for (int64_t k = 0; k < n; ++k) base[k] = draw();
        return;
    }
    std::vector<int64_t> index(size_t(std::max(out.ndim, 1)), 0);
    int64_t off = 0;
    for (int64_t k = 0; k < n; ++k) {
        base[off] = draw();
        for (int d = out.ndim - 1; d >= 0; --d) {
            if (++index[size_t(d)] < out.shape[d]) {
                off += out.strides[d];
                break;
            }
            off -= (out.shape[d] - 1) * out.strides[d];
            index[size_t(d)] = 0;
        }
    }
}

// out's elements drawn as np_draw_on draws them (the choice made once).
void np_fill_on(NpAug* s, NpDraw f, double a, double b, const NpOut& out) {
    NpBitGen* const g = s->bit_generator;
    switch (f) {
        case NpDraw::standard_normal:
        case NpDraw::randn: np_each<double>(out, [s] { return np_legacy_gauss(s); }); break;
        case NpDraw::normal:
            np_each<double>(out, [s, a, b] { return a + b * np_legacy_gauss(s); });
            break;
        case NpDraw::uniform: {
            const double range = b - a;
            np_each<double>(out, [g, a, range] { return a + range * g->next_double(g->state); });
            break;
        }
        case NpDraw::standard_exponential:
            np_each<double>(out, [s] { return np_legacy_standard_exponential(s); });
            break;
        case NpDraw::exponential:
            np_each<double>(out, [s, a] { return a * np_legacy_standard_exponential(s); });
            break;
        default: np_each<double>(out, [g] { return g->next_double(g->state); });
    }
}

// np.random.mtrand._rand as np_setup found it (with the GIL).
struct NpLegacy {
    int status = 0;                     // 0: not looked at yet, 1: found, -1: not usable
    PyObject* acquire = nullptr;        // its lock's acquire and release
    PyObject* release = nullptr;
    PyObject* functions = nullptr;      // np.random's dict
    NpAug* aug = nullptr;
    // np.random's functions as np_setup found them; null: that one always through Python
    PyObject* original[NP_COUNT] = {};
    PyObject* names[NP_COUNT] = {};     // their names (interned)
};
NpLegacy np_legacy;
// The functions drawn through Python whatever happens (read without the GIL).
std::atomic<unsigned> np_python_only{0};

// The aug_bitgen_t of RandomState `rs` (a Cython object: its fields are C members): the copy
// of its bit generator's bitgen_t (`cap`), which the aug_bitgen_t right after points to.
NpAug* np_find_aug(PyObject* rs, const NpBitGen* cap) {
    char* const base = reinterpret_cast<char*>(rs);
    const Py_ssize_t size = Py_TYPE(rs)->tp_basicsize;
    for (Py_ssize_t off = Py_ssize_t(sizeof(PyObject));
         off + Py_ssize_t(sizeof(NpBitGen) + sizeof(NpAug)) <= size;
         off += Py_ssize_t(alignof(NpBitGen))) {
        if (std::memcmp(base + off, cap, sizeof(NpBitGen)) != 0) continue;
        NpAug* aug = reinterpret_cast<NpAug*>(base + off + Py_ssize_t(sizeof(NpBitGen)));
        if (aug->bit_generator == reinterpret_cast<NpBitGen*>(base + off)) return aug;
    }
    return nullptr;
}

NpBitGen* np_capsule(py::handle rs) {
    py::object capsule = rs.attr("_bit_generator").attr("capsule");
    auto* g = static_cast<NpBitGen*>(PyCapsule_GetPointer(capsule.ptr(), "BitGenerator"));
    if (!g) throw py::error_already_set();
    return g;
}

// Whether the pointer `p` is one of the members of `rs` after `after` (its lock).
bool np_holds(PyObject* rs, const void* after, PyObject* p) {
    const char* base = reinterpret_cast<const char*>(rs);
    const char* end = base + Py_TYPE(rs)->tp_basicsize;
    for (const char* q = static_cast<const char*>(after); q + sizeof(PyObject*) <= end;
         q += sizeof(void*)) {
        PyObject* member;
        std::memcpy(&member, q, sizeof member);
        if (member == p) return true;
    }
    return false;
}

// The native draws against NumPy's own functions, on two private RandomStates of one seed: the
// same values (bit for bit), the generators left in the same place. The functions (bits) whose
// draws differ.
unsigned np_differences(py::module_ mtrand) {
    constexpr int64_t n = 1001;                 // odd: a Gaussian left cached for the next
    py::object type = mtrand.attr("RandomState");
    py::object numpy_side = type(20261128), native_side = type(20261128);
    NpAug* s = np_find_aug(native_side.ptr(), np_capsule(native_side));
    NpAug* t = np_find_aug(numpy_side.ptr(), np_capsule(numpy_side));
    if (!s || !t) return ~0u;
    unsigned differ = 0;
    auto same = [&](py::object expected, const std::vector<double>& got) {
        auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(expected);
        return a && a.size() == int64_t(got.size()) &&
               std::memcmp(a.data(), got.data(), got.size() * sizeof(double)) == 0;
    };
    struct Case { NpDraw f; double a, b; const char* name; };
    const Case cases[] = {
        {NpDraw::random_sample, 0, 0, "random_sample"},
        {NpDraw::standard_normal, 0, 0, "standard_normal"},
        {NpDraw::normal, 1.5, 2.5, "normal"}, {NpDraw::uniform, -1.25, 3.5, "uniform"},
        {NpDraw::standard_exponential, 0, 0, "standard_exponential"},
        {NpDraw::exponential, 0.75, 0, "exponential"}};
    for (const Case& c : cases) {
        py::object expected;
        const int arity = np_arity(c.f);
        py::object f = numpy_side.attr(c.name);
        expected = arity == 0 ? f(py::arg("size") = n)
                 : arity == 1 ? f(c.a, py::arg("size") = n) : f(c.a, c.b, py::arg("size") = n);
        // the first half as scalars, the rest as an array
        std::vector<double> got(static_cast<size_t>(n));
        for (int64_t k = 0; k < n / 2; ++k) got[size_t(k)] = np_draw_on(s, c.f, c.a, c.b);
        const int64_t rest = n - n / 2, unit = 1;
        np_fill_on(s, c.f, c.a, c.b, NpOut{got.data() + n / 2, 1, &rest, &unit, 8});
        if (!same(expected, got)) differ |= np_bit(c.f);
    }
    const int64_t bounds[][2] = {{-7, 1000}, {0, 1}, {3, 1LL << 40}, {-(1LL << 62), 1LL << 62},
                                 {INT64_MIN, INT64_MAX}};
    for (const auto& lh : bounds) {
        py::array_t<int64_t> expected =
            numpy_side.attr("randint")(lh[0], lh[1], py::arg("size") = n);
        NpBounded b;
        if (!np_bounded(lh[0], lh[1], b)) return ~0u;
        std::vector<int64_t> got(static_cast<size_t>(n));
        for (int64_t& v : got) v = np_bounded_draw(s->bit_generator, b);
        if (expected.size() != n || std::memcmp(expected.data(), got.data(), got.size() * 8) != 0)
            differ |= np_bit(NpDraw::randint);
    }
    // the generators in the same place: the bit generator's stream and the cached Gaussian
    if (s->has_gauss != t->has_gauss || std::memcmp(&s->gauss, &t->gauss, sizeof(double)) != 0 ||
        numpy_side.attr("random_sample")().cast<double>() != np_next_double(s))
        return ~0u;
    return differ;
}

// Finds np.random.mtrand._rand's generator and checks it (with the GIL, once): status 1, or -1
// and every draw through Python as before.
void np_setup() {
    np_legacy.status = -1;
    np_python_only.store(~0u);
    try {
        py::module_ mtrand = py::module_::import("numpy.random.mtrand");
        py::module_ random = py::module_::import("numpy.random");
        py::object rs = mtrand.attr("_rand");
        if (!py::type::handle_of(rs).is(mtrand.attr("RandomState"))) return;
        NpAug* aug = np_find_aug(rs.ptr(), np_capsule(rs));
        if (!aug) return;
        // NumPy's functions draw with the RandomState's own lock, its bit generator's
        py::object lock = rs.attr("_bit_generator").attr("lock");
        if (!np_holds(rs.ptr(), aug + 1, lock.ptr())) return;
        const unsigned differ = np_differences(mtrand);
        if (differ == ~0u) return;
        unsigned python_only = 0;
        py::dict functions = random.attr("__dict__");
        py::dict own = mtrand.attr("__dict__");
        for (int k = 0; k < NP_COUNT; ++k) {
            const NpDraw f = NpDraw(k);
            const char* name = NP_NAMES[k];
            // (checked as: random, ranf, sample and rand are random_sample, randn is
            // standard_normal)
            const NpDraw checked = f == NpDraw::randn ? NpDraw::standard_normal
                                 : np_arity(f) == 0 && f != NpDraw::standard_normal &&
                                   f != NpDraw::standard_exponential ? NpDraw::random_sample : f;
            bool ok = !(differ & np_bit(checked)) && own.contains(name) &&
                      functions.contains(name);
            if (ok) {
                // a method of _rand of that name (ranf and sample: mtrand's own functions,
                // which call _rand.random_sample)
                py::object fn = own[name];
                ok = fn.is(py::object(functions[name])) &&
                     py::str(fn.attr("__name__")).cast<std::string>() == name &&
                     (py::hasattr(fn, "__self__") ? py::object(fn.attr("__self__")).is(rs)
                      : (f == NpDraw::ranf || f == NpDraw::sample));
                if (ok) np_legacy.original[k] = fn.release().ptr();
            }
            np_legacy.names[k] = py::str(name).release().ptr();
            PyUnicode_InternInPlace(&np_legacy.names[k]);
            if (!ok) python_only |= np_bit(f);
        }
        np_legacy.acquire = py::object(lock.attr("acquire")).release().ptr();
        np_legacy.release = py::object(lock.attr("release")).release().ptr();
        np_legacy.functions = functions.release().ptr();
        np_legacy.aug = aug;
        rs.release();                           // kept: its members are read from here on
        np_bitgen = aug->bit_generator;
        np_legacy.status = 1;
        np_python_only.store(python_only);
    } catch (py::error_already_set&) {
        PyErr_Clear();
    }
}

}  // namespace

const char* np_name(NpDraw f) { return NP_NAMES[int(f)]; }

int np_arity(NpDraw f) {
    switch (f) {
        case NpDraw::normal:
        case NpDraw::uniform:
        case NpDraw::randint: return 2;
        case NpDraw::exponential: return 1;
        default: return 0;
    }
}

// With the GIL: of `draws`, those drawn natively now, the lock taken (np_ready has them). A
// function of np.random replaced (by unittest.mock, say) is the one called: through Python.
// Throws PythonErrorSet where taking the lock raised.
static unsigned np_take(unsigned draws) {
    if (np_legacy.status == 0) np_setup();
    if (np_legacy.status < 0) return 0;
    unsigned native = 0;
    for (int k = 0; k < NP_COUNT; ++k)
        if ((draws & (1u << k)) && np_legacy.original[k] &&
            PyDict_GetItem(np_legacy.functions, np_legacy.names[k]) == np_legacy.original[k])
            native |= 1u << k;
    if (native && !np_ready) {
        PyObject* done = PyObject_CallNoArgs(np_legacy.acquire);
        if (!done) throw PythonErrorSet();
        Py_DECREF(done);
    }
    np_ready |= native;
    return native;
}

bool np_enter(NpDraw f) {
    if (np_python_only.load(std::memory_order_relaxed) & np_bit(f)) return false;
    if (omp_in_parallel()) return false;        // a team's threads: through Python
    const PyGILState_STATE gil = PyGILState_Ensure();
    unsigned native;
    try {
        native = np_take(np_bit(f));
    } catch (...) {
        PyGILState_Release(gil);
        throw;
    }
    PyGILState_Release(gil);
    return native != 0;
}

static void np_open(unsigned draws) {
    draws &= ~np_python_only.load(std::memory_order_relaxed) & ~np_ready;
    if (draws && !omp_in_parallel()) np_take(draws);
}

// With the GIL: the generator's lock given back where this thread holds it (an exception set
// stays set).
static void np_leave() {
    if (!np_ready) return;
    np_ready = 0;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject* done = PyObject_CallNoArgs(np_legacy.release);
    if (done) Py_DECREF(done);
    else PyErr_Clear();
    PyErr_Restore(type, value, traceback);
}

void np_pause() {
    if (!np_ready) return;
    const PyGILState_STATE gil = PyGILState_Ensure();
    np_leave();
    PyGILState_Release(gil);
}

bool np_native_value(NpDraw f, double a, double b, double* v) {
    if (!np_draws_ok(f, a, b)) return false;
    *v = np_draw_on(np_legacy.aug, f, a, b);
    return true;
}

bool np_native_fill(NpDraw f, double a, double b, const NpOut& out) {
    if (!np_draws_ok(f, a, b) || out.itemsize != int(sizeof(double))) return false;
    np_fill_on(np_legacy.aug, f, a, b, out);
    return true;
}

bool np_native_randint(int64_t low, int64_t high, int64_t* v) {
    NpBounded b;
    if (!np_bounded(low, high, b)) return false;
    *v = np_bounded_draw(np_bitgen, b);
    return true;
}

bool np_native_fill_randint(int64_t low, int64_t high, const NpOut& out) {
    NpBounded b;
    if (!np_bounded(low, high, b) || out.itemsize != int(sizeof(int64_t))) return false;
    NpBitGen* g = np_bitgen;
    np_each<int64_t>(out, [&] { return np_bounded_draw(g, b); });
    return true;
}

#if defined(__clang__)
#pragma float_control(pop)
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

// --- argument conversion ----------------------------------------------------------------------

static std::string describe(py::handle h) {
    if (py::isinstance<py::array>(h)) {
        py::array a = py::reinterpret_borrow<py::array>(h);
        return "ndarray[" + py::str(a.dtype()).cast<std::string>() + ", " +
               std::to_string(a.ndim()) + "]";
    }
    if (PyType_Check(h.ptr()))      // a type given for a dtype (np.int64): its name
        return "type[" + py::str(h.attr("__name__")).cast<std::string>() + "]";
    return py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>();
}

[[noreturn]] static void type_error(const char* fn, const char* param, const char* expected,
                                    py::handle got, const std::string& detail = "") {
    throw py::type_error(std::string(fn) + "() argument '" + param + "': expected " + expected +
                         ", got " + describe(got) + detail);
}

// Whether `dt` is the dtype of kind and itemsize (in native byte order): arguments are taken
// as they are, never converted.
static bool dtype_is(const py::dtype& dt, char kind, int itemsize) {
    return dt.kind() == kind && dt.itemsize() == itemsize && dt.attr("isnative").cast<bool>();
}

void array_argument(PyObject* o, const char* fn, const char* param, const char* expected,
                    char kind, int itemsize, int ndim, bool written, void** data,
                    int64_t* shape, int64_t* strides) {
    py::handle h(o);
    if (!py::isinstance<py::array>(h)) type_error(fn, param, expected, h);
    py::array a = py::reinterpret_borrow<py::array>(h);
    if (a.ndim() != ndim || !dtype_is(a.dtype(), kind, itemsize))
        type_error(fn, param, expected, h);
    if (written && !a.writeable())
        throw py::value_error(std::string(fn) + "() argument '" + param +
                              "': assignment destination is read-only");
    *data = const_cast<void*>(a.data());
    for (int d = 0; d < ndim; ++d) {
        shape[d] = a.shape(d);
        if (a.strides(d) % itemsize != 0)
            type_error(fn, param, expected, h, " (strides not a multiple of the item size)");
        strides[d] = a.strides(d) / itemsize;
    }
}

// OverflowError, as NumPy raises for `np.int8(300)`.
[[noreturn]] static void out_of_range(const char* fn, const char* param, const char* expected,
                                      py::handle value) {
    throw Error(ErrorKind::overflow, std::string(fn) + "() argument '" + param + "': " +
                py::str(value).cast<std::string>() + " is out of range for " + expected);
}

template <typename T>
static void store(void* out, T v) { std::memcpy(out, &v, sizeof v); }

void scalar_argument(PyObject* o, const char* fn, const char* param, const char* expected,
                     char kind, int itemsize, void* out) {
    py::handle h(o);
    static PyObject* numpy_bool =
        py::object(py::module_::import("numpy").attr("bool_")).release().ptr();
    const bool is_bool = PyBool_Check(o) || PyObject_IsInstance(o, numpy_bool) == 1;
    if (kind == 'b') {
        if (!is_bool) type_error(fn, param, expected, h);
        store(out, PyObject_IsTrue(o) == 1);
    } else if (kind == 'c') {
        // Any Python or NumPy number but a bool, as NumPy's complex128(x) takes it.
        if (is_bool || py::isinstance<py::array>(h) || PyUnicode_Check(o) ||
            !(PyNumber_Check(o) || PyComplex_Check(o)))
            type_error(fn, param, expected, h);
        Py_complex v = PyComplex_AsCComplex(o);
        if (v.real == -1.0 && PyErr_Occurred()) { PyErr_Clear(); type_error(fn, param, expected, h); }
        if (itemsize == 8) store(out, std::complex<float>(float(v.real), float(v.imag)));
        else store(out, std::complex<double>(v.real, v.imag));
    } else if (kind == 'f') {
        if (py::isinstance<py::array>(h) || PyUnicode_Check(o) || !PyNumber_Check(o) ||
            PyComplex_Check(o))
            type_error(fn, param, expected, h);
        double v = PyFloat_AsDouble(o);
        if (v == -1.0 && PyErr_Occurred()) { PyErr_Clear(); type_error(fn, param, expected, h); }
        if (itemsize == 4) store(out, float(v));
        else store(out, v);
    } else {
        if (is_bool || py::isinstance<py::array>(h) || !PyIndex_Check(o))
            type_error(fn, param, expected, h);
        PyObject* index = PyNumber_Index(o);
        if (!index) { PyErr_Clear(); type_error(fn, param, expected, h); }
        py::int_ value = py::reinterpret_steal<py::int_>(index);
        const int bits = 8 * itemsize;
        if (kind == 'i') {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
            const long long hi = bits == 64 ? INT64_MAX : (1LL << (bits - 1)) - 1;
            if (overflow || v < -hi - 1 || v > hi) out_of_range(fn, param, expected, value);
            switch (itemsize) {
                case 1: store(out, int8_t(v)); break;
                case 2: store(out, int16_t(v)); break;
                case 4: store(out, int32_t(v)); break;
                default: store(out, int64_t(v));
            }
        } else {
            unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
            const unsigned long long hi = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
            if (PyErr_Occurred() || v > hi) {
                PyErr_Clear();
                out_of_range(fn, param, expected, value);
            }
            switch (itemsize) {
                case 1: store(out, uint8_t(v)); break;
                case 2: store(out, uint16_t(v)); break;
                case 4: store(out, uint32_t(v)); break;
                default: store(out, uint64_t(v));
            }
        }
    }
}

bool dtype_takes(PyObject* o, const char* name) {
    static PyObject* numpy_dtype =
        py::object(py::module_::import("numpy").attr("dtype")).release().ptr();
    try {
        return py::str(py::handle(numpy_dtype)(py::handle(o)).attr("name"))
                   .cast<std::string>() == name;
    } catch (const py::error_already_set&) {
        return false;
    }
}

int64_t dtype_arg(PyObject* o, const char* fn, const char* param, const char* name) {
    if (!dtype_takes(o, name))
        throw py::type_error(std::string(fn) + "() argument '" + param + "': expected the dtype " +
                             name + " (np." + name + "), got " +
                             py::repr(py::handle(o)).cast<std::string>());
    return 0;
}

// --- calls: arguments bound to parameters, functions with several signatures ----------------

static std::string quoted_list(const std::vector<std::string>& names) {
    std::string text;
    for (size_t k = 0; k < names.size(); ++k) {
        if (k) text += names.size() == 2 ? " and " : k + 1 == names.size() ? ", and " : ", ";
        text += "'" + names[k] + "'";
    }
    return text;
}

bool bind_arguments(const char* fn, int n, const char* const* names,
                    PyObject* const* defaults, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, PyObject** out) {
    if (nargs > n) {
        int required = 0;
        for (int k = 0; k < n; ++k) required += defaults[k] == nullptr;
        const std::string takes = required == n ? std::to_string(n)
                                                : "from " + std::to_string(required) + " to " +
                                                      std::to_string(n);
        PyErr_Format(PyExc_TypeError, "%s() takes %s positional argument%s but %zd %s given",
                     fn, takes.c_str(), n == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
        return false;
    }
    for (int k = 0; k < n; ++k) out[k] = k < nargs ? args[k] : nullptr;
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nkw; ++j) {
        PyObject* key = PyTuple_GET_ITEM(kwnames, j);
        const char* name = PyUnicode_AsUTF8(key);
        if (!name) return false;
        int k = 0;
        while (k < n && std::strcmp(names[k], name) != 0) ++k;
        if (k == n) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", fn,
                         name);
            return false;
        }
        if (out[k]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fn,
                         name);
            return false;
        }
        out[k] = args[nargs + j];
    }
    std::vector<std::string> missing;
    for (int k = 0; k < n; ++k) {
        if (!out[k]) out[k] = defaults[k];
        if (!out[k]) missing.push_back(names[k]);
    }
    if (!missing.empty()) {
        PyErr_Format(PyExc_TypeError, "%s() missing %zu required positional argument%s: %s", fn,
                     missing.size(), missing.size() == 1 ? "" : "s",
                     quoted_list(missing).c_str());
        return false;
    }
    return true;
}

bool array_takes(PyObject* o, char kind, int itemsize, int ndim) {
    py::handle h(o);
    if (!py::isinstance<py::array>(h)) return false;
    py::array a = py::reinterpret_borrow<py::array>(h);
    return a.ndim() == ndim && dtype_is(a.dtype(), kind, itemsize);
}

// How a scalar parameter of kind and itemsize takes `o`: 0 as it is (a NumPy scalar of its
// dtype, or a Python bool, int, float or complex for bool, int64, float64 or complex128,
// NumPy's types for them), 1 converted within its kind (bool, integer, floating, complex), 2
// converted otherwise as scalar_argument does, 3 not at all (a value out of range too: another
// signature may take it). unpy/typeinfer/overloads.py ranks the arguments of calls inside the
// module alike.
int scalar_rank(PyObject* o, char kind, int itemsize) {
    std::complex<double> scratch;
    try {
        scalar_argument(o, "", "", "", kind, itemsize, &scratch);
    } catch (const py::type_error&) {
        return 3;
    } catch (const Error&) {
        return 3;
    }
    static PyObject* numpy_generic =
        py::object(py::module_::import("numpy").attr("generic")).release().ptr();
    char own_kind = 0;          // of o's own type
    bool own = false;
    const bool wide = (kind == 'b') || itemsize == (kind == 'c' ? 16 : 8);
    if (PyBool_Check(o)) {
        own_kind = 'b', own = kind == 'b';
    } else if (PyLong_Check(o)) {
        own_kind = 'i', own = kind == 'i' && wide;
    } else if (PyFloat_Check(o)) {
        own_kind = 'f', own = kind == 'f' && wide;
    } else if (PyComplex_Check(o)) {
        own_kind = 'c', own = kind == 'c' && wide;
    } else if (PyObject_IsInstance(o, numpy_generic) == 1) {
        py::dtype dt = py::reinterpret_borrow<py::object>(o).attr("dtype");
        own_kind = dt.kind(), own = dtype_is(dt, kind, itemsize);
    }
    if (own) return 0;
    auto family = [](char k) { return k == 'u' ? 'i' : k; };   // signed or not: integers
    return own_kind && family(own_kind) == family(kind) ? 1 : 2;
}

// Whether `o` is a Python scalar that NumPy would take as the parameter's type or narrower (a
// bool, int, float or complex object, not a NumPy scalar): weak in NEP 50, it takes a weak
// variant's parameter (unpy/typeinfer/weak_params.py).
bool python_scalar(PyObject* o, char kind) {
    if (PyBool_Check(o)) return true;
    if (kind == 'b') return false;
    if (PyLong_CheckExact(o)) return true;
    if (kind == 'i' || kind == 'u') return false;
    if (PyFloat_CheckExact(o)) return true;
    return kind == 'c' && PyComplex_CheckExact(o);
}

void list_argument(PyObject* o, const char* fn, const char* param, const char* expected,
                   bool changed) {
    if (!PyList_Check(o) && !(PyTuple_Check(o) && !changed))
        type_error(fn, param, expected, py::handle(o),
                   PyTuple_Check(o) ? " (the function changes it)" : "");
}

void tuple_item_argument(PyObject* o, int64_t k, const char* fn, const char* param,
                         const char* expected, int count) {
    if (!(PyTuple_Check(o) || PyList_Check(o)) || PySequence_Fast_GET_SIZE(o) != count) {
        const std::string named = std::string(param) + "[" + std::to_string(k) + "]";
        type_error(fn, named.c_str(), expected, py::handle(o));
    }
}

void one_list_twice(const char* fn, const char* first, const char* second) {
    throw py::value_error(std::string(fn) + "() arguments '" + first + "' and '" + second +
                          "' are one list, of two item types here: compiled code would hold "
                          "two; pass a copy (list(values)) for one");
}

void distinct_rows(PyObject* o, const char* fn, const char* param) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** rows = PySequence_Fast_ITEMS(o);
    std::unordered_map<PyObject*, Py_ssize_t> seen;
    for (Py_ssize_t k = 0; k < n; ++k) {
        auto [at, fresh] = seen.emplace(rows[k], k);
        if (!fresh)
            throw py::value_error(std::string(fn) + "() argument '" + param + "': " + param +
                                  "[" + std::to_string(at->second) + "] and " + param + "[" +
                                  std::to_string(k) + "] are one list, which the function "
                                  "changes: compiled code would hold two; pass distinct lists "
                                  "([row[:] for row in " + param + "])");
    }
}

void list_item_argument(PyObject* item, int64_t k, const char* fn, const char* param,
                        const char* expected, char kind, int itemsize, void* out, int64_t part) {
    if (kind == 'f' && itemsize == 8 && PyFloat_CheckExact(item)) {     // the common ones
        store(out, PyFloat_AS_DOUBLE(item));
        return;
    }
    if (kind == 'i' && itemsize == 8 && PyLong_CheckExact(item)) {
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (!overflow && !(v == -1 && PyErr_Occurred())) {
            store(out, int64_t(v));
            return;
        }
        PyErr_Clear();
    }
    // (the name made only here: most items take the lines above)
    std::string named = std::string(param) + "[" + std::to_string(k) + "]";
    if (part >= 0) named += "[" + std::to_string(part) + "]";
    scalar_argument(item, fn, named.c_str(), expected, kind, itemsize, out);
}

void python_scalar_argument(PyObject* o, const char* fn, const char* param,
                            const char* expected, char kind, int itemsize, void* out) {
    if (!python_scalar(o, kind))
        type_error(fn, param, expected, py::handle(o),
                   " (the function compiles only for a Python scalar there, weak in NEP 50; a "
                   "NumPy one would give its results other dtypes)");
    scalar_argument(o, fn, param, expected, kind, itemsize, out);
}

void no_signature(const char* fn, const std::vector<const char*>& params,
                  const std::vector<PyObject*>& args,
                  const std::vector<std::vector<const char*>>& signatures,
                  const std::vector<int>& taken) {
    const int stop = std::min(*std::max_element(taken.begin(), taken.end()),
                              (int)params.size() - 1);
    std::vector<std::string> expected;
    for (size_t s = 0; s < signatures.size(); ++s)
        if (taken[s] == stop &&
            std::find(expected.begin(), expected.end(), signatures[s][stop]) == expected.end())
            expected.push_back(signatures[s][stop]);
    auto listed = [&](const std::function<std::string(size_t)>& type_of) {
        std::string text = "(";
        for (size_t k = 0; k < params.size(); ++k)
            text += (k ? ", " : "") + std::string(params[k]) + ": " + type_of(k);
        return text + ")";
    };
    std::string message = std::string(fn) + "() argument '" + params[stop] + "': expected ";
    for (size_t k = 0; k < expected.size(); ++k)
        message += (k ? " or " : "") + expected[k];
    message += ", got " + describe(args[stop]) + "; no signature of " + fn + "() takes " +
               listed([&](size_t k) { return describe(args[k]); }) + "; its signatures are ";
    for (size_t s = 0; s < signatures.size(); ++s)
        message += (s ? ", " : "") +
                   listed([&](size_t k) { return std::string(signatures[s][k]); });
    throw py::type_error(message);
}

// --- OpenMP's threads and NumPy's BLAS (unpy_runtime.hpp) ---------------------------------------

// At the module's import: "user" (the user's variables rule), "bounded" (GOMP_SPINCOUNT set
// before libgomp read it, here or by a module before), or "too late" (libgomp was loaded
// before: logged at debug level, and the variable removed again, so that another module does
// not take it for a bound in force).
static std::string report_spin_bound(const char* so_path) {
    if (spin_bound == SpinBound::user) return "user";
    if (spin_bound == SpinBound::set_before || !libgomp_loaded_before(so_path)) return "bounded";
    unsetenv("GOMP_SPINCOUNT");
    try {
        py::module_::import("logging").attr("getLogger")("unpy").attr("debug")(
            "libgomp was loaded before this module: OpenMP's idle threads spin as libgomp's "
            "defaults say (GOMP_SPINCOUNT set too late; OMP_WAIT_POLICY=passive before Python "
            "starts bounds them)");
    } catch (py::error_already_set&) {
    }
    return "too late";
}

// At a module's import: how its OpenMP threads wait (__unpy_spin__), and the seams of
// tests/cpp_emit/test_threads.py.
static void def_thread_hooks(py::module_& m, const char* so_path) {
    m.attr("__unpy_spin__") = report_spin_bound(so_path);
    m.def("__unpy_team_size__", &team_size, "tests: unpy::team_size(cpus, online, runnable, "
          "own, limit)");
    m.def("__unpy_fake_load__", [](py::object reading) {
        std::lock_guard<std::mutex> lock(team_choice.fake_mutex);
        if (!reading.is_none()) {
            auto r = reading.cast<py::tuple>();
            team_choice.fake = {r[0].cast<int>(), r[1].cast<int>(), r[2].cast<int>(),
                                r[3].cast<int>()};
        }
        team_choice.faking = !reading.is_none();
        team_choice.read_at = std::numeric_limits<int64_t>::min() / 2;
    }, "tests: (cpus, online, runnable, own) to use instead of the machine's load, or None");
    m.def("__unpy_last_team__", [] { return team_choice.last.load(); },
          "tests: the team of the last parallel nest (1: it ran on the calling thread)");
    m.def("__unpy_native_draws__", [] {
        if (np_legacy.status == 0) np_setup();
        py::list native;
        for (int k = 0; k < NP_COUNT; ++k)
            if (!(np_python_only.load() & np_bit(NpDraw(k)))) native.append(NP_NAMES[k]);
        return native;
    }, "tests: np.random's functions this module draws natively (unpy_runtime.hpp's np_enter)");
}

// The library NumPy has loaded (numpy.libs/libscipy_openblas64_*.so), found once; null where
// NumPy was built otherwise (the products then run through numpy.matmul, np.linalg raises).
void* numpy_openblas() {
    static void* lib = [] {
        void* found = nullptr;
        Gil gil;
        try {
            py::module_ os = py::module_::import("os");
            std::string root = py::str(os.attr("path").attr("dirname")(
                py::module_::import("numpy").attr("__file__")));
            py::list paths = py::module_::import("glob").attr("glob")(
                root + "/../numpy.libs/libscipy_openblas64_*.so*");
            for (auto path : paths) {
                void* lib = dlopen(path.cast<std::string>().c_str(), RTLD_NOW | RTLD_NOLOAD);
                if (lib && dlsym(lib, "scipy_cblas_dgemm64_")) { found = lib; break; }
            }
        } catch (py::error_already_set&) {
        }
        return found;
    }();
    return lib;
}

// --- the GPU hook (unpy_runtime.hpp) ----------------------------------------------------------

// Leaked on purpose: a static py::object would be destroyed after the interpreter.
static py::object& python_function(const char* module, const char* name) {
    return *new py::object(py::module_::import(module).attr(name));
}

static void warn_failed(const char* what, py::error_already_set& e) {
    log_warning(std::string(what) + e.what());
}

const int64_t* replay_epoch_word() {
    static const int64_t* word = reinterpret_cast<const int64_t*>(
        py::module_::import("gpurts.epoch").attr("REPLAY_EPOCH").attr("ctypes").attr("data")
            .cast<intptr_t>());
    return word;
}

void report_openmp_time(int64_t token, double seconds) {
    Gil gil;
    try {
        static py::object& hook = python_function("jitgpu.hook", "openmp_timed");
        hook(token, seconds);
    } catch (py::error_already_set& e) {
        warn_failed("GPU decision's timing failed: ", e);
    }
}

HookValues::HookValues() : dict(PyDict_New()) {
    if (!dict.get()) throw PythonErrorSet();
}

void HookValues::put(const char* name, PyObject* owned) {
    PyRef value(owned);
    if (!owned || PyDict_SetItemString(dict.get(), name, owned) != 0) throw PythonErrorSet();
}

void answer_value(const PyRef& results, const char* name, char kind, int itemsize, void* out) {
    py::object v = py::reinterpret_borrow<py::object>(results.get())[name];
    scalar_of(v.ptr(), kind, itemsize, out);
}

void scalar_of(PyObject* o, char kind, int itemsize, void* out) {
    py::handle v(o);
    if (kind == 'b') {
        store(out, v.cast<bool>());
    } else if (kind == 'f') {
        const double d = v.cast<double>();
        if (itemsize == 4) store(out, float(d));
        else store(out, d);
    } else if (kind == 'c') {
        const auto c = v.cast<std::complex<double>>();
        if (itemsize == 8) store(out, std::complex<float>(c));
        else store(out, c);
    } else {
        // (an int beyond int64, as getrandbits(64) may give: Python's OverflowError)
        const int64_t i = kind == 'i' ? int64_t(PyLong_AsLongLong(o))
                                      : int64_t(v.cast<uint64_t>());
        if (kind == 'i' && i == -1 && PyErr_Occurred()) throw py::error_already_set();
        std::memcpy(out, &i, size_t(itemsize));     // (little-endian: the low bytes)
    }
}

// The kinds of the hook's answer: jitgpu/answer.py's Kind, the same numbers.
enum class AnswerKind : int {
    run_openmp = 0, done = 1, no_device = 2, refused = 3, split = 4, timed_openmp = 5
};

static AnswerKind answer_kind(const py::object& answer) {
    return AnswerKind(answer.attr("kind").cast<int>());
}

// A DONE answer's `name` field (None where the answer is another kind).
static py::object done_field(const py::object& answer, bool done, const char* name) {
    return done ? py::object(answer.attr(name)) : py::object(py::none());
}

// With the GIL, after the hook answered: the replay record of a DONE answer (`record`, its
// `replay` field, None for none) becomes the nest's; without one, the nest's record is stale.
static void take_record(Replay& replay, py::object record, const std::string& key,
                        const std::string& switches) {
    std::unique_lock<std::mutex> lock(replay.mutex, std::try_to_lock);
    if (record.is_none() || !lock.owns_lock()) {    // (replaying: the next answer brings it again)
        replay.stale.store(true, std::memory_order_release);
        return;
    }
    replay.stale.store(false, std::memory_order_release);
    if (replay.record == record.ptr() && replay.words) return;
    int64_t* words = reinterpret_cast<int64_t*>(record.attr("address").cast<intptr_t>());
    PyObject* old = replay.record;
    replay.record = record.release().ptr();
    replay.words = words;
    replay.key = key;
    replay.switches = switches;
    Py_XDECREF(old);
}

// The relaunch record of a DONE answer (its `relaunch` field, jitgpu/relaunch.py), if any;
// any other answer drops the nest's record (a newer launch decided otherwise).
static void take_relaunch(Relaunch& relaunch, py::object record, const std::string& key,
                          const std::string& switches) {
    std::unique_lock<std::mutex> lock(relaunch.mutex, std::try_to_lock);
    if (!lock.owns_lock()) return;      // (relaunching: this answer's record is not needed)
    PyObject* old = relaunch.record;
    relaunch.record = nullptr;
    relaunch.words = nullptr;
    if (!record.is_none()) {
        relaunch.words = reinterpret_cast<int64_t*>(record.attr("address").cast<intptr_t>());
        relaunch.record = record.release().ptr();
        relaunch.key = key;
        relaunch.switches = switches;
    }
    Py_XDECREF(old);
}

PyRef gpu_hook(const char* module, const char* function, int nest, HookValues& values,
               const std::string& switches, int64_t scope, HookSkip& skip, SplitRange& split,
               const HookKey* inputs, NestTimer* timer, Replay* replay, Relaunch* relaunch) {
    const std::string* key = inputs ? &inputs->bytes : nullptr;
    try {
        static py::object& hook = python_function("jitgpu.hook", "run_nest");
        py::handle dict(values.dict.get());
        py::object answer = key ? hook(module, function, nest, dict, py::bytes(*key))
                                : hook(module, function, nest, dict);
        const AnswerKind kind = answer_kind(answer);
        const bool done = kind == AnswerKind::done;
        // Any answer but a record leaves the nest's record stale: the report `explain` shows is
        // this call's, so a later replay would not be the call it describes.
        if (replay && key) take_record(*replay, done_field(answer, done, "replay"), *key, switches);
        if (relaunch && key)
            take_relaunch(*relaunch, done_field(answer, done, "relaunch"), *key, switches);
        switch (kind) {
        case AnswerKind::done:
            return PyRef(done_field(answer, done, "results").release().ptr());
        case AnswerKind::no_device:
            skip.set(switches);
            return PyRef();
        case AnswerKind::refused: {
            // The same inputs are refused again; `by_layout`: so are any arrays of the same
            // layouts, with the same scalars; `in_call`: until the call ends.
            const bool by_layout = answer.attr("by_layout").cast<bool>();
            const bool in_call = answer.attr("in_call").cast<bool>();
            if (inputs && (!in_call || scope > 0))
                skip.set_refused(by_layout ? inputs->layout : inputs->bytes, switches, by_layout,
                                 in_call ? scope : 0);
            return PyRef();
        }
        case AnswerKind::split:
            split.take(answer.attr("lo").cast<int64_t>(), answer.attr("hi").cast<int64_t>(),
                       answer.attr("spare").cast<int>(), answer.attr("handle").cast<int64_t>());
            return PyRef();
        case AnswerKind::timed_openmp:     // a close call: run the OpenMP code, timed
            if (timer) timer->start(answer.attr("token").cast<int64_t>());
            return PyRef();
        case AnswerKind::run_openmp:
            return PyRef();
        }
        log_warning("GPU hook answered an unknown kind, running OpenMP");
        return PyRef();
    } catch (py::error_already_set& e) {
        // Ctrl-C while the hook planned or ran the nest: the call stops (the glue raises
        // KeyboardInterrupt), rather than running the nest on OpenMP after a warning.
        if (e.matches(PyExc_KeyboardInterrupt)) throw Interrupted();
        warn_failed("GPU hook failed, running OpenMP: ", e);
        return PyRef();
    }
}

void SplitRange::take(int64_t lo_, int64_t hi_, int spare_, int64_t handle_) {
    lo = split_lo = lo_;
    hi = split_hi = hi_;
    spare = spare_;
    handle = handle_;
}

PyRef SplitRange::finish(HookValues& reductions) {
    int64_t h = handle;
    handle = 0;
    PyRef result;
    try {
        static py::object& hook = python_function("jitgpu.multi", "finish_split");
        py::object answer = hook(h, py::handle(reductions.dict.get()));
        if (answer_kind(answer) == AnswerKind::done)
            result = PyRef(done_field(answer, true, "results").release().ptr());
    } catch (py::error_already_set& e) {
        warn_failed("GPU finish hook failed, running OpenMP: ", e);
    }
    if (!result.get()) left = 2;
    return result;
}

// --- residency (unpy_runtime.hpp) -------------------------------------------------------------

int64_t* find_residency_counters() {
    static int64_t* counters = [] {
        static int64_t none[2] = {0, 0};
        Gil gil;
        // The first array's memory may die while an exception raised through Python (a draw's
        // ValueError) unwinds the call: kept set across the import, which would drop it.
        struct KeptError {
            PyObject *type, *value, *traceback;
            KeptError() { PyErr_Fetch(&type, &value, &traceback); }
            ~KeptError() { PyErr_Restore(type, value, traceback); }
        } kept;
        try {
            py::module_ counters_module = py::module_::import("unpy.residency_counters");
            // The array is never freed: arrays' memory dies (memory_dies) until the
            // interpreter's very end, after the module's globals are gone.
            new py::object(counters_module.attr("COUNTERS"));
            return reinterpret_cast<int64_t*>(counters_module.attr("COUNTERS_ADDRESS")
                                                  .cast<intptr_t>());
        } catch (py::error_already_set&) {
            return static_cast<int64_t*>(none);   // no unpy: nothing is ever on a device
        }
    }();
    residency_counters_found.store(counters, std::memory_order_release);
    return counters;
}

static py::list ranges_list(const ByteRanges& r) {
    py::list out;
    for (const auto& range : r.ranges) out.append(py::make_tuple(range.first, range.second));
    return out;
}

void flush_host(const ByteRanges& reads, const ByteRanges& writes) {
    Gil gil;
    try {
        static py::object& flush = python_function("gpurts.residency", "flush_ranges");
        flush(ranges_list(reads), ranges_list(writes));
    } catch (py::error_already_set& e) {
        warn_failed("copying device data back failed: ", e);
    }
}

void forget_device_copies(const void* p, size_t bytes) {
    if (!Py_IsInitialized()) return;
    Gil gil;
    try {
        static py::object& dies = python_function("gpurts.residency", "memory_dies");
        const int64_t lo = int64_t(reinterpret_cast<intptr_t>(p));
        dies(lo, lo + int64_t(bytes));
    } catch (py::error_already_set& e) {
        warn_failed("forgetting a dead array's device copy failed: ", e);
    }
}

bool device_holds(const void* p, size_t bytes) {
    if (!anything_resident() || omp_in_parallel() || !Py_IsInitialized()) return false;
    Gil gil;
    try {
        static py::object& holds = python_function("gpurts.residency", "holds");
        const int64_t lo = int64_t(reinterpret_cast<intptr_t>(p));
        return holds(lo, lo + int64_t(bytes)).cast<bool>();
    } catch (py::error_already_set& e) {
        warn_failed("asking for an array's device copy failed: ", e);
        return false;
    }
}

bool CallScope::begin(const char* module, const char* function) {
    module_ = module;
    function_ = function;
    if (begun || !memo) return !host_only_;
    begun = true;
    try {
        static py::object& ask = python_function("jitgpu.calls", "begin_call");
        py::object answer = ask(module, function, py::bytes(layout()), id());   // a CallAnswer
        host_only_ = answer.attr("host_only").cast<bool>();
        token = answer.attr("token").cast<int64_t>();
        if (answer.attr("remember").cast<bool>()) memo->set_refused(layout(), switches());
    } catch (py::error_already_set& e) {
        if (e.matches(PyExc_KeyboardInterrupt)) throw Interrupted();
        warn_failed("the call's GPU choice failed: ", e);
    }
    return !host_only_;
}

void CallScope::close() {
    const bool close_ = id_ > 0 && anything_resident();
    Gil gil;
    PyObject *type, *value, *trace;
    PyErr_Fetch(&type, &value, &trace);      // an exception on its way out stays as it is
    try {
        if (close_) {
            ByteRanges dying;
            if (dead) dead(dying);
            static py::object& close_scope = python_function("gpurts.residency", "close_scope");
            close_scope(id_, ranges_list(dying));
        }
        if (skipped_in_call && module_) {
            static py::object& count = python_function("jitgpu.residency", "nest_calls_share");
            count(module_, function_, id_, skipped_in_call);
        }
        if (token && !std::uncaught_exceptions()) {    // (a call that raised is no sample)
            static py::object& timed = python_function("jitgpu.calls", "call_timed");
            // True: the calls of these layouts now run with OpenMP without asking (the next
            // call's nests may all be skipped by their own refusals, so it would not ask).
            if (timed(token, omp_get_wtime() - started).ptr() == Py_True && memo)
                memo->set_refused(layout(), switches());
        }
    } catch (py::error_already_set& e) {
        warn_failed("copying device data back failed: ", e);
    } catch (...) {
    }
    PyErr_Restore(type, value, trace);
}

// --- the module's init ------------------------------------------------------------------------

void add_function_record(PyObject* m, const char* name, bool gpu, int nests,
                         const char* python_name, const char* signature) {
    py::module_ module = py::reinterpret_borrow<py::module_>(m);
    if (!py::hasattr(module, "__unpy_functions__")) {
        module.attr("__unpy_functions__") = py::dict();
        module.attr("__unpy_nests__") = py::dict();
    }
    module.attr("__unpy_functions__")[name] = py::dict(
        py::arg("gpu") = gpu, py::arg("nests") = nests, py::arg("name") = python_name,
        py::arg("signature") = signature);
}

void add_nest_records(PyObject* m, const char* name, const char* const* jsons, int count) {
    py::tuple records(count);
    for (int k = 0; k < count; ++k) records[k] = py::str(jsons[k]);
    py::reinterpret_borrow<py::module_>(m).attr("__unpy_nests__")[name] = records;
}

void def_called_last(PyObject* m, const char* const* python_names, const char** called_last,
                     int count) {
    py::reinterpret_borrow<py::module_>(m).def("__unpy_called_last__", [=]() {
        py::dict called;
        for (int k = 0; k < count; ++k) called[python_names[k]] = called_last[k];
        return called;
    }, "function -> the name of its signature called last (see jitgpu/report.py)");
}

// Runs the module's own source in the extension module's namespace. `__unpy_compiled__` holds
// the compiled functions, and unpython's decorators hand them back in place of the Python ones
// (see unpython._bind), so the module's code sees the compiled functions from their definition
// on.
void finish_module(PyObject* m, const char* so_path, const char* source, const char* py_path,
                   const char* const* compiled, int count) {
    py::module_ module = py::reinterpret_borrow<py::module_>(m);
    def_thread_hooks(module, so_path);
    py::dict globals = module.attr("__dict__");
    globals["__file__"] = so_path;
    py::dict functions;
    for (int k = 0; k < count; ++k) functions[compiled[k]] = module.attr(compiled[k]);
    globals["__unpy_compiled__"] = functions;
    py::object builtins = py::module_::import("builtins");
    builtins.attr("exec")(builtins.attr("compile")(source, py_path, "exec"), globals);
}

}  // namespace unpy
