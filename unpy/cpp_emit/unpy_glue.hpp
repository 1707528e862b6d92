// What the glue of a generated module needs (unpy/cpp_emit/module.py): Python's C API, the
// runtime, and templates that convert arguments and results through the non-template functions
// of unpy_python.cpp. The glue's functions take a vectorcall (METH_FASTCALL | METH_KEYWORDS).
#pragma once
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "unpy_runtime.hpp"

namespace unpy {

// The call threw Interrupted: Python's handler runs now (KeyboardInterrupt); returns nullptr.
inline PyObject* keyboard_interrupt() {
    if (PyErr_CheckSignals() == 0) PyErr_SetNone(PyExc_KeyboardInterrupt);
    return nullptr;
}

// --- arguments --------------------------------------------------------------------------------

// The arguments of a call bound to the function's `n` parameters, as Python binds them
// (positional, then keywords, then defaults: `defaults[k]` null where parameter k has none);
// false with Python's TypeError set (too many, an unknown keyword, a value twice, missing).
bool bind_arguments(const char* fn, int n, const char* const* names,
                    PyObject* const* defaults, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, PyObject** out);

// An ndarray of the kind, itemsize and ndim, taken as it is (never converted): its data, shape
// and strides in elements; else a TypeError naming the function, parameter, what it expects
// and what came (a ValueError where it is written and read-only).
void array_argument(PyObject* o, const char* fn, const char* param, const char* expected,
                    char kind, int itemsize, int ndim, bool written, void** data,
                    int64_t* shape, int64_t* strides);
// A Python or NumPy scalar converted as NumPy converts it (an OverflowError out of range).
void scalar_argument(PyObject* o, const char* fn, const char* param, const char* expected,
                     char kind, int itemsize, void* out);
// The same for a weak parameter: a Python scalar only (unpy/typeinfer/weak_params.py).
void python_scalar_argument(PyObject* o, const char* fn, const char* param,
                            const char* expected, char kind, int itemsize, void* out);
// A parameter of type `type[name]` (a dtype known while compiling): nothing at run time.
int64_t dtype_arg(PyObject* o, const char* fn, const char* param, const char* name);

template <typename T, int N>
Array<T, N> array_arg(PyObject* o, const char* fn, const char* param, const char* expected,
                      bool written) {
    Array<T, N> v;
    void* data = nullptr;
    array_argument(o, fn, param, expected, dtype_kind<T>(), int(sizeof(T)), N, written, &data,
                   v.shape, v.strides);
    v.data = static_cast<T*>(data);
    v.pyobj = o;
    return v;
}

template <typename T>
T scalar_arg(PyObject* o, const char* fn, const char* param, const char* expected) {
    T v{};
    scalar_argument(o, fn, param, expected, dtype_kind<T>(), int(sizeof(T)), &v);
    return v;
}

template <typename T>
T python_scalar_arg(PyObject* o, const char* fn, const char* param, const char* expected) {
    T v{};
    python_scalar_argument(o, fn, param, expected, dtype_kind<T>(), int(sizeof(T)), &v);
    return v;
}

// --- list parameters ('list[float64]') --------------------------------------------------------

// A TypeError as array_argument's where `o` is not a Python list (or a tuple, where the
// function leaves it as it is: `changed` false).
void list_argument(PyObject* o, const char* fn, const char* param, const char* expected,
                   bool changed);
// Item k of a list argument converted as scalar_argument converts a scalar, its TypeError
// naming the item (`param[k]`).
// (`part` >= 0: item `part` of the tuple that is item k, named `param[k][part]`)
void list_item_argument(PyObject* item, int64_t k, const char* fn, const char* param,
                        const char* expected, char kind, int itemsize, void* out,
                        int64_t part = -1);

// One Python list given for two list parameters of different item types: a ValueError.
[[noreturn]] void one_list_twice(const char* fn, const char* first, const char* second);

// A list of lists whose function changes it must not hold one list twice (compiled code's
// would be two): a ValueError naming the two items.
void distinct_rows(PyObject* o, const char* fn, const char* param);

template <typename T> struct is_tuple : std::false_type {};
template <typename... U> struct is_tuple<std::tuple<U...>> : std::true_type {};
// A TypeError as array_argument's where a list's item is no tuple (or list) of `count` items.
void tuple_item_argument(PyObject* o, int64_t k, const char* fn, const char* param,
                         const char* expected, int count);

// Item k of a list of tuples: a tuple (or list) of as many numbers, each converted as
// scalar_argument converts a scalar (the names `param[k][part]` made only for an error).
template <typename Tuple, size_t... K>
Tuple tuple_arg(PyObject* o, int64_t k, const char* fn, const char* param, const char* expected,
                std::index_sequence<K...>) {
    tuple_item_argument(o, k, fn, param, expected, int(sizeof...(K)));
    PyObject** items = PySequence_Fast_ITEMS(o);
    Tuple t;
    (list_item_argument(items[K], k, fn, param, expected,
                        dtype_kind<std::tuple_element_t<K, Tuple>>(),
                        int(sizeof(std::tuple_element_t<K, Tuple>)), &std::get<K>(t),
                        int64_t(K)), ...);
    return t;
}

// `o` (a list, or a tuple where `changed` is false) as a List of its items converted: numbers
// (as scalar_argument converts them), tuples of numbers or, for a list of lists, lists
// converted alike.
template <typename T>
List<T> list_arg(PyObject* o, const char* fn, const char* param, const char* expected,
                 const char* item_expected, bool changed) {
    list_argument(o, fn, param, expected, changed);
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** given = PySequence_Fast_ITEMS(o);
    if constexpr (is_list<T>::value)
        if (changed) distinct_rows(o, fn, param);
    List<T> v;
    v.reserve(n);
    for (Py_ssize_t k = 0; k < n; ++k) {
        if constexpr (is_tuple<T>::value) {
            v.append(tuple_arg<T>(given[k], k, fn, param, item_expected,
                                  std::make_index_sequence<std::tuple_size_v<T>>()));
        } else if constexpr (is_list<T>::value) {
            // ('list[list[float64]]': its items 'list[float64]')
            const std::string named = std::string(param) + "[" + std::to_string(k) + "]";
            const std::string inner(expected + 5, std::strlen(expected) - 6);
            v.append(list_arg<typename T::value_type>(given[k], fn, named.c_str(),
                                                       inner.c_str(), item_expected, changed));
        } else {
            T x{};
            list_item_argument(given[k], k, fn, param, item_expected, dtype_kind<T>(),
                               int(sizeof(T)), &x);
            v.append(x);
        }
    }
    return v;
}

// The caller's list `o` given what the function made of it (`now`, converted from `was`):
// the items that changed replaced (as the interpreter holds a value of the items' type), a
// changed list of a list of lists changed where it is, those added appended, those taken away
// removed; an item left as it was stays the caller's object.
template <typename T>
void list_back(PyObject* o, const List<T>& now, const List<T>& was) {
    const auto& items = now.values();
    const auto& before = was.values();
    const size_t n = before.size(), m = items.size();
    for (size_t k = 0; k < std::min(n, m); ++k) {
        if (same_item(items[k], before[k])) continue;
        if constexpr (is_list<T>::value) {
            PyObject* row = PyList_Check(o) && Py_ssize_t(k) < PyList_GET_SIZE(o)
                                ? PyList_GET_ITEM(o, Py_ssize_t(k)) : nullptr;
            if (row && PyList_Check(row)) {
                list_back(row, items[k], before[k]);
                continue;
            }
        }
        if (PyObject* x = result(static_cast<const T&>(items[k])))
            PyList_SetItem(o, Py_ssize_t(k), x);
    }
    if (m < n) PyList_SetSlice(o, Py_ssize_t(m), Py_ssize_t(n), nullptr);
    for (size_t k = n; k < m; ++k)
        if (PyObject* x = result(static_cast<const T&>(items[k]))) {
            PyList_Append(o, x);
            Py_DECREF(x);
        }
}

// A list parameter's changes given back to the caller's Python list (list_back) when the call
// ends, also by an exception (the interpreter's list keeps what the function did before it
// raised); none where `active` is false (the list is another parameter's too, which gives them
// back). Made and destroyed with the GIL held (the glue's GilRelease ends before).
template <typename T>
class ListBack {
    PyObject* list;
    const List<T>& now;
    const List<T> was;
    const bool active;

public:
    ListBack(PyObject* o, const List<T>& v, bool active = true)
        : list(o), now(v), was(active ? v : List<T>()), active(active) {}
    ListBack(const ListBack&) = delete;
    ListBack& operator=(const ListBack&) = delete;
    ~ListBack() {
        if (!active) return;
        PyObject *type, *value, *trace;
        PyErr_Fetch(&type, &value, &trace);
        list_back(list, now, was);
        PyErr_Clear();      // (the list changed by another thread meanwhile: left as it is)
        PyErr_Restore(type, value, trace);
    }
};

// --- functions with several signatures (unpy/cpp_emit/module.py, signature_dispatcher) -----

bool array_takes(PyObject* o, char kind, int itemsize, int ndim);
bool dtype_takes(PyObject* o, const char* name);
int scalar_rank(PyObject* o, char kind, int itemsize);
bool python_scalar(PyObject* o, char kind);

template <typename T, int N>
bool array_takes(PyObject* o) { return array_takes(o, dtype_kind<T>(), int(sizeof(T)), N); }
template <typename T>
int scalar_rank(PyObject* o) { return scalar_rank(o, dtype_kind<T>(), int(sizeof(T))); }
template <typename T>
bool python_scalar(PyObject* o) { return python_scalar(o, dtype_kind<T>()); }

// How a list parameter takes `o` (scalar_rank's ranks): the largest of its items' (0 for none),
// 3 where it is no list (or tuple).
template <typename Tuple, size_t... K>
int tuple_rank(PyObject* o, std::index_sequence<K...>) {
    if (!(PyTuple_Check(o) || PyList_Check(o)) ||
        PySequence_Fast_GET_SIZE(o) != Py_ssize_t(sizeof...(K)))
        return 3;
    PyObject** items = PySequence_Fast_ITEMS(o);
    return std::max({0, scalar_rank<std::tuple_element_t<K, Tuple>>(items[K])...});
}

template <typename T>
int list_rank(PyObject* o) {
    if (!PyList_Check(o) && !PyTuple_Check(o)) return 3;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    int rank = 0;
    for (Py_ssize_t k = 0; k < n && rank < 3; ++k) {
        if constexpr (is_list<T>::value)
            rank = std::max(rank, list_rank<typename T::value_type>(items[k]));
        else if constexpr (is_tuple<T>::value)
            rank = std::max(rank, tuple_rank<T>(items[k],
                                                std::make_index_sequence<std::tuple_size_v<T>>()));
        else
            rank = std::max(rank, scalar_rank<T>(items[k]));
    }
    return rank;
}

// No signature takes the arguments: a TypeError naming the parameter where the signatures
// that took the most leading arguments (`taken`, one count per signature) stop, the types they
// expect there, what came, and every signature.
[[noreturn]] void no_signature(const char* fn, const std::vector<const char*>& params,
                               const std::vector<PyObject*>& args,
                               const std::vector<std::vector<const char*>>& signatures,
                               const std::vector<int>& taken);

// --- results ------------------------------------------------------------------------------------

// (result and scalar_result: unpy_runtime.hpp, which print uses too)

// --- the module's init ------------------------------------------------------------------------

// What jitgpu reads of the module: __unpy_functions__[name] (keyed by the ir.Function's name)
// and __unpy_nests__[name] (the nests' IR as JSON).
void add_function_record(PyObject* m, const char* name, bool gpu, int nests,
                         const char* python_name, const char* signature);
void add_nest_records(PyObject* m, const char* name, const char* const* jsons, int count);
// __unpy_called_last__(): function -> the name of its signature called last.
void def_called_last(PyObject* m, const char* const* python_names, const char** called_last,
                     int count);
// The threads' hooks, then the module's own source run in its namespace with the compiled
// functions handed to unpython's decorators (unpython._bind).
void finish_module(PyObject* m, const char* so_path, const char* source, const char* py_path,
                   const char* const* compiled, int count);

}  // namespace unpy
