/* contact_solvers._pack: the block-sparse setters' lists of blocks packed in compiled code
 * (issue 29 item 5, docs/performance.md §3 "The Python setter in compiled code").
 *
 * Optional: setup.py builds it when it can, and python/contact_solvers/_common.py falls back to
 * its pure-Python packing when this module is missing, disabled (CONTACT_SOLVERS_NO_EXTENSION=1)
 * or declines a list (docs/python.md §7). It only ever says "packed" or "not packed": every
 * error message stays the Python path's, which runs again on anything this module declines.
 *
 * The library reads a packed argument as float64 values, each block column-major, back to back
 * (docs/block_sparse.md). pack() writes the blocks of one or more lists there in one call,
 * reading each block from numpy's array struct or through the buffer protocol (PEP 3118), so
 * any exporter works: numpy arrays, memoryviews, ... The set call's other fixed costs in Python
 * go the same way: vectors() checks the vectors and reads their addresses, call() calls the
 * library's setter (a function of pointers only) without ctypes' per-call conversion. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#ifdef CONTACT_SOLVERS_PACK_NUMPY
/* numpy's array struct, read directly for the common block: an exact ndarray of native float64
 * (its shape, strides and data pointer: the fields and inline accessors of ndarraytypes.h, the
 * same in numpy 1.x and 2.x; no C-API table is imported). A buffer export from numpy costs about
 * 640 instructions a block (numpy rebuilds and compares its format string each time), more than
 * the rest of the block's work; reading the struct costs a few dozen. Other blocks (subclasses,
 * other dtype objects, other exporters) go through the buffer protocol. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarraytypes.h>

static PyTypeObject *ndarray_type;  /* numpy.ndarray */
static PyObject *float64_dtype;     /* numpy.dtype("float64"), numpy's shared native float64 */
#endif

/* Whether a PEP 3118 format string is one native-order, native-size float64 ("d", "@d", "=d",
 * or "<d"/">d" when that is this machine's order). Anything else (another type, a byte-swapped
 * float64, a structured type) is converted by the Python path. */
static int is_native_double(const char *format)
{
    if (format == NULL) /* NULL means "B", unsigned bytes (PEP 3118) */
        return 0;
    if (format[0] == '@' || format[0] == '=')
        format++;
#if PY_LITTLE_ENDIAN
    else if (format[0] == '<')
        format++;
#else
    else if (format[0] == '>' || format[0] == '!')
        format++;
#endif
    return format[0] == 'd' && format[1] == '\0';
}

/* One block, rows x cols at `base` with byte strides s0 (rows) and s1 (columns), into `out`
 * column-major. The reads go through memcpy: an exporter may hand out unaligned memory. */
static void copy_block(double *out, const char *base, Py_ssize_t s0, Py_ssize_t s1,
                       Py_ssize_t rows, Py_ssize_t cols)
{
    if (s0 == (Py_ssize_t)sizeof(double)) { /* columns contiguous (Fortran order) */
        if (s1 == rows * (Py_ssize_t)sizeof(double) || cols == 1) {
            memcpy(out, base, (size_t)(rows * cols) * sizeof(double));
            return;
        }
        for (Py_ssize_t j = 0; j < cols; j++)
            memcpy(out + j * rows, base + j * s1, (size_t)rows * sizeof(double));
        return;
    }
    if (rows == 3) { /* every J block (normal, tangent 1, tangent 2): one column per pass */
        const char *r0 = base, *r1 = base + s0, *r2 = base + 2 * s0;
        for (Py_ssize_t j = 0; j < cols; j++, out += 3) {
            memcpy(out, r0 + j * s1, sizeof(double));
            memcpy(out + 1, r1 + j * s1, sizeof(double));
            memcpy(out + 2, r2 + j * s1, sizeof(double));
        }
        return;
    }
    /* Row by row: each source row read in order, written with a stride of `rows`; the rows'
     * own stride 8 (C order: what a bridge slicing MuJoCo's row-major Jacobian copies) gets its
     * own loop, which the compiler turns into plain loads and stores. */
    for (Py_ssize_t i = 0; i < rows; i++) {
        const char *row = base + i * s0;
        double *o = out + i;
        if (s1 == (Py_ssize_t)sizeof(double))
            for (Py_ssize_t j = 0; j < cols; j++)
                memcpy(o + j * rows, row + j * sizeof(double), sizeof(double));
        else
            for (Py_ssize_t j = 0; j < cols; j++)
                memcpy(o + j * rows, row + j * s1, sizeof(double));
    }
}

/* The buffer of one block when it is a 2-D native float64 array of the expected shape; 0 (no
 * buffer held, no exception set) when it is not, -1 on an error that must propagate. */
static int block_buffer(PyObject *block, Py_buffer *view, Py_ssize_t rows, Py_ssize_t cols)
{
    if (PyObject_GetBuffer(block, view, PyBUF_RECORDS_RO) != 0) {
        /* No buffer, or not one of this kind (nested lists, a strided exporter that needs
         * suboffsets, ...): the Python path converts it or names it. Interrupts propagate. */
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            return -1;
        PyErr_Clear();
        return 0;
    }
    if (view->ndim == 2 && view->itemsize == (Py_ssize_t)sizeof(double) &&
        view->shape[0] == rows && view->shape[1] == cols && view->strides != NULL &&
        is_native_double(view->format))
        return 1;
    PyBuffer_Release(view);
    return 0;
}

/* Writes one block (rows x cols) column-major at `out`: 1 when written, 0 when the block is not
 * a 2-D native float64 array of that shape (nothing held, no exception), -1 on an error. */
static int pack_block(double *out, PyObject *block, Py_ssize_t rows, Py_ssize_t cols)
{
#ifdef CONTACT_SOLVERS_PACK_NUMPY
    if (Py_TYPE(block) == ndarray_type) {
        PyArrayObject *a = (PyArrayObject *)block;
        if ((PyObject *)PyArray_DESCR(a) == float64_dtype) {
            if (PyArray_NDIM(a) != 2 || PyArray_DIMS(a)[0] != rows || PyArray_DIMS(a)[1] != cols)
                return 0;
            copy_block(out, PyArray_BYTES(a), PyArray_STRIDES(a)[0], PyArray_STRIDES(a)[1],
                       rows, cols);
            return 1;
        }
    }
#endif
    Py_buffer view;
    Py_INCREF(block); /* held across the export, which may run Python code */
    int got = block_buffer(block, &view, rows, cols);
    if (got == 1) {
        copy_block(out, (const char *)view.buf, view.strides[0], view.strides[1], rows, cols);
        PyBuffer_Release(&view);
    }
    Py_DECREF(block);
    return got;
}

/* The writable C-contiguous native float64 memory of `out` and its length in doubles; NULL with
 * an exception when it is not one. `view` is released by the caller when `*held`. */
static double *out_buffer(PyObject *out, Py_buffer *view, int *held, Py_ssize_t *len)
{
    *held = 0;
#ifdef CONTACT_SOLVERS_PACK_NUMPY
    if (Py_TYPE(out) == ndarray_type) {
        PyArrayObject *a = (PyArrayObject *)out;
        if ((PyObject *)PyArray_DESCR(a) == float64_dtype && PyArray_NDIM(a) == 1 &&
            PyArray_CHKFLAGS(a, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_WRITEABLE | NPY_ARRAY_ALIGNED)) {
            *len = PyArray_DIMS(a)[0];
            return (double *)PyArray_DATA(a);
        }
    }
#endif
    if (PyObject_GetBuffer(out, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) != 0)
        return NULL;
    *held = 1;
    if (!is_native_double(view->format) || view->itemsize != (Py_ssize_t)sizeof(double)) {
        PyBuffer_Release(view);
        *held = 0;
        PyErr_SetString(PyExc_ValueError, "pack: out must be a float64 buffer");
        return NULL;
    }
    *len = view->len / (Py_ssize_t)sizeof(double);
    return (double *)view->buf;
}

PyDoc_STRVAR(pack_doc,
"pack(out, shapes, *lists) -> bool\n"
"\n"
"Writes the blocks of ``lists`` (each a list or tuple), in order, column-major and back to\n"
"back into ``out`` (a writable C-contiguous float64 buffer of exactly their total number of\n"
"entries). ``shapes``: bytes of native Py_ssize_t pairs (rows, cols), one pair per block, the\n"
"shapes the structure asks for. True when every block was a 2-D native float64 array or buffer\n"
"of its shape (any strides) and was written; False when one was not, or the block count differs\n"
"(``out`` may then hold part of the values: the caller packs again in Python, which converts\n"
"other dtypes and names a wrong block).");

static PyObject *pack(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs < 2) {
        PyErr_SetString(PyExc_TypeError, "pack(out, shapes, *lists): two arguments at least");
        return NULL;
    }
    PyObject *shapes = args[1];
    if (!PyBytes_Check(shapes) || PyBytes_GET_SIZE(shapes) % (2 * sizeof(Py_ssize_t)) != 0) {
        PyErr_SetString(PyExc_TypeError, "pack: shapes must be bytes of Py_ssize_t pairs");
        return NULL;
    }
    const Py_ssize_t nblocks = PyBytes_GET_SIZE(shapes) / (Py_ssize_t)(2 * sizeof(Py_ssize_t));
    const char *shape_bytes = PyBytes_AS_STRING(shapes);
    Py_ssize_t shape[2];

    Py_ssize_t count = 0;
    for (Py_ssize_t l = 2; l < nargs; l++) {
        if (!PyList_Check(args[l]) && !PyTuple_Check(args[l]))
            Py_RETURN_FALSE;
        count += PySequence_Fast_GET_SIZE(args[l]);
    }
    if (count != nblocks)
        Py_RETURN_FALSE; /* blocks missing or extra: the Python path and the library say which */

    Py_ssize_t total = 0;
    for (Py_ssize_t k = 0; k < nblocks; k++) {
        memcpy(shape, shape_bytes + k * sizeof(shape), sizeof(shape));
        if (shape[0] < 0 || shape[1] < 0) {
            PyErr_SetString(PyExc_ValueError, "pack: negative shape");
            return NULL;
        }
        total += shape[0] * shape[1];
    }
    Py_buffer view;
    int held;
    Py_ssize_t len;
    double *dst = out_buffer(args[0], &view, &held, &len);
    if (dst == NULL)
        return NULL;
    if (len != total) {
        if (held)
            PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "pack: out must hold exactly the blocks' entries");
        return NULL;
    }

    Py_ssize_t k = 0;
    int packed = 1;
    for (Py_ssize_t l = 2; l < nargs && packed == 1; l++) {
        PyObject *list = args[l];
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(list);
        for (Py_ssize_t b = 0; b < n; b++, k++) {
            /* Read the list again at each block: a buffer export may run Python code that
             * changes it; then the Python path reads it again. */
            if (PySequence_Fast_GET_SIZE(list) != n) {
                packed = 0;
                break;
            }
            memcpy(shape, shape_bytes + k * sizeof(shape), sizeof(shape));
            packed = pack_block(dst, PySequence_Fast_ITEMS(list)[b], shape[0], shape[1]);
            if (packed != 1)
                break;
            dst += shape[0] * shape[1];
        }
    }
    if (held)
        PyBuffer_Release(&view);
    if (packed < 0)
        return NULL;
    return PyBool_FromLong(packed);
}

PyDoc_STRVAR(vectors_doc,
"vectors(vecs, n0, n) -> list | None\n"
"\n"
"The data addresses (ints) of ``vecs`` (a tuple) when the first is an exact numpy ndarray of\n"
"numpy's native float64, 1-D of length ``n0`` with stride 8, and every other one the same of\n"
"length ``n`` (what ``_BlockSparse.vectors`` compares in Python, read from numpy's struct);\n"
"None for anything else, or when built without numpy's headers (the caller then checks them\n"
"in Python, naming a bad one).");

static PyObject *vectors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3 || !PyTuple_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "vectors(vecs: tuple, n0: int, n: int)");
        return NULL;
    }
    const Py_ssize_t n0 = PyLong_AsSsize_t(args[1]), n = PyLong_AsSsize_t(args[2]);
    if ((n0 == -1 || n == -1) && PyErr_Occurred())
        return NULL;
#ifdef CONTACT_SOLVERS_PACK_NUMPY
    const Py_ssize_t count = PyTuple_GET_SIZE(args[0]);
    PyObject *out = PyList_New(count);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *v = PyTuple_GET_ITEM(args[0], k);
        if (Py_TYPE(v) != ndarray_type)
            goto decline;
        PyArrayObject *a = (PyArrayObject *)v;
        if ((PyObject *)PyArray_DESCR(a) != float64_dtype || PyArray_NDIM(a) != 1 ||
            PyArray_DIMS(a)[0] != (k ? n : n0) ||
            PyArray_STRIDES(a)[0] != (npy_intp)sizeof(double))
            goto decline;
        PyObject *address = PyLong_FromVoidPtr(PyArray_DATA(a));
        if (address == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, address);
    }
    return out;
decline:
    Py_DECREF(out);
#endif
    Py_RETURN_NONE;
}

PyDoc_STRVAR(call_doc,
"call(function, *pointers) -> int\n"
"\n"
"Calls the C function at address ``function``, declared ``int32_t f(void *, ...)`` with one\n"
"``void *`` parameter per further argument (2 to 8 of them, ints: addresses, or None), with\n"
"the GIL released, and returns its int32 result: what a ctypes call through\n"
"``Library.untyped(name)`` does (the caller checks there that every parameter of ``name`` is a\n"
"pointer in the header), without ctypes' per-call conversion (about 6k instructions).");

typedef int32_t (*fn2)(void *, void *);
typedef int32_t (*fn3)(void *, void *, void *);
typedef int32_t (*fn4)(void *, void *, void *, void *);
typedef int32_t (*fn5)(void *, void *, void *, void *, void *);
typedef int32_t (*fn6)(void *, void *, void *, void *, void *, void *);
typedef int32_t (*fn7)(void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*fn8)(void *, void *, void *, void *, void *, void *, void *, void *);

static PyObject *call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs < 3 || nargs > 9) {
        PyErr_SetString(PyExc_TypeError, "call(function, *pointers): 2 to 8 pointers");
        return NULL;
    }
    void *f = PyLong_AsVoidPtr(args[0]);
    if (f == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "call: NULL function");
        return NULL;
    }
    void *p[8];
    for (Py_ssize_t k = 1; k < nargs; k++) {
        /* An int or None (NULL), as ctypes' c_void_p takes them: a float must not become 0. */
        if (args[k] == Py_None) {
            p[k - 1] = NULL;
            continue;
        }
        if (!PyLong_Check(args[k])) {
            PyErr_Format(PyExc_TypeError, "call: argument %zd is not an int", k);
            return NULL;
        }
        p[k - 1] = PyLong_AsVoidPtr(args[k]);
        if (p[k - 1] == NULL && PyErr_Occurred())
            return NULL;
    }
    int32_t status = 0;
    Py_BEGIN_ALLOW_THREADS
    switch (nargs - 1) {
    case 2: status = ((fn2)f)(p[0], p[1]); break;
    case 3: status = ((fn3)f)(p[0], p[1], p[2]); break;
    case 4: status = ((fn4)f)(p[0], p[1], p[2], p[3]); break;
    case 5: status = ((fn5)f)(p[0], p[1], p[2], p[3], p[4]); break;
    case 6: status = ((fn6)f)(p[0], p[1], p[2], p[3], p[4], p[5]); break;
    case 7: status = ((fn7)f)(p[0], p[1], p[2], p[3], p[4], p[5], p[6]); break;
    default: status = ((fn8)f)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]); break;
    }
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(status);
}

PyDoc_STRVAR(address_doc,
"address(a) -> int | None\n"
"\n"
"The data address of ``a`` when it is an exact numpy ndarray (``a.ctypes.data``, read from\n"
"numpy's struct instead of through a ctypes view: about 1.5k instructions less), else None\n"
"(also when built without numpy's headers).");

static PyObject *address(PyObject *self, PyObject *a)
{
    (void)self;
#ifdef CONTACT_SOLVERS_PACK_NUMPY
    if (Py_TYPE(a) == ndarray_type)
        return PyLong_FromVoidPtr(PyArray_DATA((PyArrayObject *)a));
#else
    (void)a;
#endif
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"address", address, METH_O, address_doc},
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL, call_doc},
    {"pack", (PyCFunction)(void (*)(void))pack, METH_FASTCALL, pack_doc},
    {"vectors", (PyCFunction)(void (*)(void))vectors, METH_FASTCALL, vectors_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "contact_solvers._pack",
    "The block-sparse setters' lists of blocks packed in compiled code (optional; see pack()).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__pack(void)
{
#ifdef CONTACT_SOLVERS_PACK_NUMPY
    if (ndarray_type == NULL) {
        PyObject *numpy = PyImport_ImportModule("numpy");
        if (numpy == NULL)
            return NULL;
        PyObject *ndarray = PyObject_GetAttrString(numpy, "ndarray");
        PyObject *dtype = ndarray ? PyObject_CallMethod(numpy, "dtype", "s", "float64") : NULL;
        Py_DECREF(numpy);
        if (dtype == NULL || !PyType_Check(ndarray)) {
            Py_XDECREF(ndarray);
            Py_XDECREF(dtype);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ImportError, "numpy.ndarray is not a type");
            return NULL;
        }
        ndarray_type = (PyTypeObject *)ndarray; /* kept for the process's life */
        float64_dtype = dtype;
    }
#endif
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "NUMPY_ARRAYS",
#ifdef CONTACT_SOLVERS_PACK_NUMPY
                                             1
#else
                                             0
#endif
                                             ) != 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
