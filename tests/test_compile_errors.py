"""Compile errors (SPEC section 10), one per kind, through `unpy build`: the message is
`file:line:col: error: reason`, then the source line and a caret under the column; the exit code
is 1, there is no traceback, and no module is written."""
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from unpy.cli import main

REPO = Path(__file__).resolve().parents[1]
HEADER = "import math\nimport numpy as np\nimport unpython\nfrom unpython import prange\n\n"

# name, function source (after HEADER), the expected reason (regex), the line of the error
# within the function source (1-based) and the text the caret points at on that line.
CASES = [
    # --- statements -----------------------------------------------------------------------
    ("with", """
        @unpython.type('int64', 'int64')
        def f(n):
            with open('x') as g:
                pass
            return n
        """, r"'With' statements are not supported", 3, "with"),
    ("try", """
        @unpython.type('int64', 'int64')
        def f(n):
            try:
                n = n + 1
            except ValueError:
                pass
            return n
        """, r"'Try' statements are not supported", 3, "try"),
    ("raise of another exception", """
        @unpython.type('int64', 'int64')
        def f(n):
            raise KeyError("k")
        """, r"compiled code raises ValueError, IndexError, TypeError, RuntimeError, "
             r"ZeroDivisionError, OverflowError, AssertionError .*raise others outside", 3,
     "KeyError"),
    ("raise with a computed message", """
        @unpython.type('int64', 'int64')
        def f(n):
            raise ValueError("n is " + str(n))
        """, r"the message of a raised exception must be a string literal", 3, "\"n is"),
    ("list comprehension in any", """
        @unpython.type('ndarray[float64, 1]', 'bool')
        def f(a):
            return any([x > 0 for x in a])
        """, r"a list comprehension is not supported in compiled functions except as the "
             r"argument of sum\(\), min\(\) or max\(\)", 3, "[x"),
    ("np.array of a filtered nested list comprehension", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a):
            return np.array([[x for x in r if x > 0] for r in a])
        """, r"np.array\(\) of nested list comprehensions takes no 'if' \(rows would differ "
             r"in length\)", 3, "[[x"),
    ("np.array of a list comprehension of rows", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a):
            return np.array([r * 2.0 for r in a])
        """, r"np.array\(\) of a list comprehension takes items that are numbers", 3,
     "np.array"),
    ("lambda passed on", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            g = lambda x: x + 1
            return np.sort(a, kind=g)
        """, r"'g' is a lambda, which compiled code only calls \(g\(x\)\)", 4, "g)"),
    ("lambda bound twice", """
        @unpython.type('float64', 'float64')
        def f(x):
            g = lambda y: y + 1
            g = lambda y: y + 2
            return g(x)
        """, r"a lambda is supported bound once to a name, with plain positional parameters", 3,
     "lambda y: y + 1"),
    ("np.array of a list comprehension over a range of a variable step", """
        @unpython.type('int64', 'int64', 'ndarray[float64, 1]')
        def f(n, s):
            return np.array([i * 0.5 for i in range(0, n, s)])
        """, r"over a range takes a step that is a nonzero integer literal", 3, "range"),
    ("np.array of rows that depend on the outer loop", """
        @unpython.type('int64', 'ndarray[float64, 2]')
        def f(n):
            return np.array([[j * 1.0 for j in range(i)] for i in range(n)])
        """, r"iterates over something that depends on the outer loop: rows may differ",
     3, "range(i)"),
    ("np.array of list comprehensions three deep", """
        @unpython.type('int64', 'ndarray[float64, 3]')
        def f(n):
            return np.array([[[1.0 for k in range(n)] for j in range(n)] for i in range(n)])
        """, r"nested three deep is not supported", 3, "[1.0"),
    ("a lambda called with too many arguments", """
        @unpython.type('float64', 'float64')
        def f(x):
            g = lambda y: y + 1
            return g(x, x)
        """, r"g\(\) takes 1 positional argument\(s\) here", 4, "g(x, x)"),
    ("a lambda that calls itself", """
        @unpython.type('float64', 'float64')
        def f(x):
            g = lambda y: g(y) + 1
            return g(x)
        """, r"a lambda that calls itself is not supported", 3, "g(y)"),
    ("print of starred values", """
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            print(*a)
        """, r"print\(\*values\) is not supported in compiled code", 3, "*a"),
    ("print of a tuple", """
        @unpython.type('float64', None)
        def f(x):
            t = (x, x)
            print(t)
        """, r"print\(\) of a tuple\[float64, float64\] is not supported", 4, "t)"),
    ("print in a prange", """
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(a.shape[0]):
                print(a[i])
        """, r"print\(\) inside a prange is not supported: its iterations run in any order",
     4, "print"),
    ("print to a file", """
        @unpython.type('float64', None)
        def f(x):
            print(x, file=None)
        """, r"print\(\) takes sep= and end= as string literals and flush=True or False", 3,
     "None"),
    ("random draw in a prange", """
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(a.shape[0]):
                a[i] = np.random.random()
        """, r"np.random.random\(\) inside a prange is not supported: its iterations would "
             r"take the draws in any order; draw an array before the loop", 4, "np.random"),
    ("random generator objects", """
        @unpython.type('int64', 'float64')
        def f(seed):
            rng = np.random.default_rng(seed)
            return rng.random()
        """, r"np.random.default_rng\(\) is not supported in compiled code: draw with the "
             r"module's functions", 3, "np.random"),
    ("random function not drawn", """
        @unpython.type('int64', 'float64')
        def f(n):
            return np.random.dirichlet(n)
        """, r"np.random.dirichlet\(\) is not supported in compiled code; of np.random it "
             r"calls np.random.beta, ", 3, "np.random"),
    ("time function in a prange", """
        from time import perf_counter

        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(a.shape[0]):
                a[i] = perf_counter()
        """, r"time.perf_counter\(\) inside a prange is not supported \(a call through "
             r"Python\); call it before or after the loop", 6, "perf_counter"),
    ("random draw of an array parameter", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(mu):
            return np.random.normal(mu, 1.0)
        """, r"np.random.normal\(\) of an array 'loc' is not supported in compiled code",
     3, "mu"),
    ("random draw given None", """
        @unpython.type('int64', 'int64')
        def f(n):
            return np.random.randint(n, None)
        """, r"None is not a value compiled code has", 3, "None"),
    ("random draw given an unknown keyword", """
        @unpython.type('int64', 'ndarray[float64, 1]')
        def f(n):
            return np.random.normal(0.0, 1.0, shape=n)
        """, r"np.random.normal\(loc, scale, size\) got 'shape' which it does not take", 3,
     "n)"),
    ("random draw with too many arguments", """
        @unpython.type('float64', 'float64')
        def f(x):
            return np.random.uniform(x, x, 3, 4)
        """, r"np.random.uniform\(\) takes at most 3 arguments by position \(low, high, "
             r"size\)", 3, "np.random"),
    ("random dimensions by name", """
        @unpython.type('int64', 'ndarray[float64, 1]')
        def f(n):
            return np.random.rand(d0=n)
        """, r"np.random.rand\(d0, d1, ...\) takes its dimensions by position", 3, "n)"),
    ("list of values as a product operand", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            return np.dot([1.0, 2.0], a)
        """, r"a list of values is not supported here in compiled code; write np.array\(\[...\]\)",
     3, "1.0"),
    ("tuples ordered", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'bool')
        def f(a, b):
            return a.shape < b.shape
        """, r"tuples compare with == and != to another tuple in compiled code", 3, "a.shape <"),
    ("endless itertools.repeat", """
        import itertools

        @unpython.type('int64', 'int64')
        def f(n):
            for _ in itertools.repeat(None):
                n += 1
            return n
        """, r"itertools.repeat\(value, times\) takes the two here", 5, "itertools"),
    ("the None of itertools.repeat read", """
        import itertools

        @unpython.type('int64', 'int64')
        def f(n):
            for x in itertools.repeat(None, 3):
                n += x
            return n
        """, r"the loop variable of itertools.repeat\(None, n\) is None", 5, "x in"),
    ("row mask given a matrix", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
        def f(a, w):
            a[w > 0.5] = a
        """, r"a\[mask\] = values with a mask of the leading axes takes values of one row", 3,
     "a\n"),
    ("list pop in a prange", """
        @unpython.type('int64', 'ndarray[float64, 1]', None)
        def f(n, a):
            out = [1.0] * n
            for i in prange(a.shape[0]):
                a[i] = out.pop()
        """, r"the list 'out' inside a prange is not supported|out.pop\(\) inside a prange", 5,
     "out"),
    ("list insert without a value", """
        @unpython.type('int64', 'int64')
        def f(n):
            out = [1]
            out.insert(n)
            return len(out)
        """, r"insert\(\) takes an index and a value here", 4, "out.insert"),
    ("break in a loop over itertools.product", """
        import itertools

        @unpython.type('int64', 'int64')
        def f(n):
            for i, j in itertools.product(range(n), range(n)):
                if i == j:
                    break
            return n
        """, r"a break in a loop over itertools.product\(\) is not supported here", 5, "for"),
    ("a list slice given an array", """
        @unpython.type('ndarray[int64, 1]', 'int64')
        def f(a):
            out = [1, 2, 3]
            out[:2] = a
            return len(out)
        """, r"a slice of a list takes a list's values \(a list, a list literal, a slice of a "
             r"list\)", 4, "a\n"),
    ("itertools.product into one name", """
        import itertools

        @unpython.type('int64', 'int64')
        def f(n):
            for p in itertools.product(range(n), range(n)):
                n += 1
            return n
        """, r"a loop over itertools.product\(\) unpacks one plain name per iterable", 5,
     "p in"),
    ("itertools.product with repeat", """
        import itertools

        @unpython.type('int64', 'int64')
        def f(n):
            for i, j in itertools.product(range(n), repeat=2):
                n += 1
            return n
        """, r"itertools.product\(\) takes its iterables by position here \(no repeat=\)", 5,
     "itertools"),
    ("list pop of two indices", """
        @unpython.type('int64', 'int64')
        def f(n):
            out = [1, 2]
            return out.pop(0, 1)
        """, r"pop\(\) takes an index or nothing here", 4, "out.pop"),
    ("a mask given values of two dimensions", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
        def f(a, b):
            a[a > 0.5] = b
        """, r"a\[mask\] = values takes a 1-D array of values, one per element where the mask "
             r"holds", 3, "b\n"),
    ("nested def with a decorator", """
        @unpython.type('int64', 'int64')
        def f(n):
            @staticmethod
            def g():
                return 1
            return n
        """, r"a function defined inside a compiled function is supported where its body is "
             r"one `return expression`", 4, "def"),
    ("annotated assignment", """
        @unpython.type('int64', 'int64')
        def f(n):
            x: int = n
            return x
        """, r"annotated assignments are not supported.*@unpython.locals", 3, "x:"),
    ("chained assignment with unpacking", """
        @unpython.type('int64', 'int64')
        def f(n):
            a = b, c = n, n
            return a
        """, r"tuple unpacking in a chained assignment is not supported", 3, "b, c"),
    ("expression statement", """
        @unpython.type('int64', 'int64')
        def f(n):
            n + 1
            return n
        """, r"has no effect", 3, "n + 1"),
    ("return tuple undeclared", """
        @unpython.type('int64', 'int64')
        def f(n):
            return n, n
        """, r"cannot return tuple\[int64, int64\] as int64", 3, "n, n"),
    # --- expressions ----------------------------------------------------------------------
    ("lambda", """
        @unpython.type('int64', 'int64')
        def f(n):
            return (lambda x: x)(n)
        """, r"'Lambda' expressions are not supported.*define the function at module level",
         3, "lambda"),
    ("list literal as a value", """
        @unpython.type('int64', 'int64')
        def f(n):
            x = [n, n][0]
            return n
        """, r"a list is bound to a name in compiled code \(out = \[\], then out.append\(v\)\);"
             r".*for an array of values write np.array\(\[a, b, c\]\)", 3, "[n, n]"),
    ("append in a prange", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            out = []
            for i in prange(a.shape[0]):
                out.append(a[i])
            return np.array(out)
        """, r"out.append\(\) inside a prange is not supported: its iterations run in any "
             r"order; append in a range loop, or fill an array of the largest size keeping a "
             r"count", 5, "out.append"),
    ("a list read in a @gpu prange", """
        @unpython.gpu
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            w = [1.0, 2.0]
            for i in prange(a.shape[0]):
                a[i] = a[i] * w[1]
        """, r"the list 'w' inside a prange is not supported: its iterations run in any order "
             r"\(and a @gpu function's on the device\); make it an array before the loop "
             r"\(w_array = np.array\(w\)\)", 6, "w[1]"),
    ("a list of arrays", """
        @unpython.type('ndarray[float64, 2]', 'int64')
        def f(a):
            rows = []
            for i in range(a.shape[0]):
                rows.append(a[i])
            return len(rows)
        """, r"a list of ndarray\[float64, 1\] values is not supported in compiled code: its "
             r"items are numbers, bools, tuples of numbers or lists of them", 5, "a[i]"),
    ("a function defined inside of more than one statement", """
        @unpython.type('float64', 'float64')
        def f(x):
            def g(y):
                z = y * 2
                return z
            return g(x)
        """, r"a function defined inside a compiled function is supported where its body is "
             r"one `return expression` \(it is inlined where it is called, as a lambda\); "
             r"define 'g' at module level with @unpython.type", 3, "def g"),
    ("a store into a tuple of a list", """
        @unpython.type('list[tuple[int64, int64]]', None)
        def f(p):
            p[0][1] = 5
        """, r"'tuple' object does not support item assignment: store a new tuple", 3, "p[0][1]"),
    ("a tuple of a list indexed by a variable", """
        @unpython.type('list[tuple[int64, int64]]', 'int64', 'int64')
        def f(p, k):
            return p[0][k]
        """, r"an item of a list of tuples takes one literal index from -2 to 1 here", 3,
     "p[0][k]"),
    ("branches of a tuple and a number", """
        @unpython.type('int64', 'int64')
        def f(n):
            x, y = (n, 1) if n > 0 else 0
            return x
        """, r"the branches of this conditional expression are tuple\[.*\] and int64: "
             r"both must be numbers, arrays of one type or tuples of as many numbers", 3, "(n, 1)"),
    ("a list passed to a list parameter of other items", """
        @unpython.type('list[int64]', 'int64')
        def g(v):
            return v[0]

        @unpython.type('float64', 'int64')
        def f(x):
            out = [x]
            return g(out)
        """, r"argument of g\(\): list\[float64\] is not a list\[int64\]", 8, "out)"),
    ("a row of a list of lists read as a name and changed", """
        @unpython.type('list[list[float64]]', None)
        def f(m):
            for row in m:
                row[0] = 1.0
        """, r"'row' is the list 'm' holds here, which compiled code copies, and the function "
             r"changes 'row': Python's would change both; index the list itself", 3, "m:"),
    ("a list stored into another then changed", """
        @unpython.type('int64', 'list[list[int64]]')
        def f(n):
            out = []
            row = [1]
            out.append(row)
            row.append(n)
            return out
        """, r"the list 'row' stored here into another list is a copy there in compiled code, "
             r"where Python's list would be one object in both", 5, "row)"),
    ("a list stored twice", """
        @unpython.type('int64', 'list[list[int64]]')
        def f(n):
            out = []
            row = [n]
            out.append(row)
            out.append(row)
            return out
        """, r"the list 'row' stored here into another list is a copy there", 5, "row)"),
    ("numbers and lists in one list", """
        @unpython.type('int64', 'int64')
        def f(n):
            out = [1]
            out.append([n])
            return len(out)
        """, r"the list 'out' takes list\[int64\] items here and int64 items elsewhere; a list "
             r"in compiled code holds numbers, or lists of one depth", 4, "[n]"),
    ("a list of arrays declared", """
        @unpython.type('list[ndarray[float64, 1]]', 'int64')
        def f(m):
            return len(m)
        """, r"a list holds numbers, bools, tuples of numbers or lists of them, not ndarray\[float64, 1\]", 2,
     "def"),
    ("too many indices of a list", """
        @unpython.type('list[float64]', 'float64')
        def f(v):
            return v[0][1]
        """, r"'v' is a list of float64; it takes 1 index\(es\) here", 3, "v[0][1]"),
    ("a list passed inside a prange", """
        @unpython.type('list[float64]', None)
        def g(v):
            v.append(1.0)

        @unpython.type('list[float64]', 'int64', None)
        def f(v, n):
            for i in prange(n):
                g(v)
        """, r"the list 'v' passed inside a prange is not supported: its iterations run in any "
             r"order", 8, "v)"),
    ("a changed list parameter bound anew in a loop", """
        @unpython.type('list[float64]', 'int64', None)
        def f(v, n):
            v.append(1.0)
            for i in range(n):
                v = [1.0]
        """, r"'v' is a list parameter \(the caller's list\) that the function changes, and "
             r"another list is bound to it in a loop or a branch here; bind that list to another "
             r"name", 5, "[1.0]"),
    ("a second name for a list changed", """
        @unpython.type('int64', 'int64')
        def f(n):
            a = [n]
            b = a
            b.append(1)
            return len(a)
        """, r"'b' is the list 'a' holds here, which compiled code copies, and the function "
             r"changes 'b': Python's would change both", 4, "a\n"),
    ("a list a callee changes, bound to a second name", """
        @unpython.type('list[float64]', None)
        def g(v):
            v.append(0.0)

        @unpython.type('int64', 'int64')
        def f(n):
            a = [1.0]
            b = a
            g(a)
            return len(b)
        """, r"'b' is the list 'a' holds here, which compiled code copies, and the function "
             r"changes 'a'", 8, "a\n"),
    ("a float stored into a list of ints", """
        @unpython.type('list[int64]', None)
        def f(v):
            v[0] = 1.5
        """, r"the list parameter 'v' holds int64 items \(its declared type list\[int64\]\): "
             r"a float64 value cannot be stored in int64 without loss", 3, "1.5"),
    ("a default for a list parameter", """
        @unpython.type('list[float64]', 'float64')
        def f(v=0.0):
            return v[0]
        """, r"a parameter of type list\[float64\] takes no default", 2, "0.0"),
    ("a list method other than append, pop and insert", """
        @unpython.type('int64', 'int64')
        def f(n):
            out = [1, 2]
            out.extend(out)
            return len(out)
        """, r"the list method '.extend\(\)' is not supported in compiled functions; a list "
             r"there takes append\(v\), pop\(\), insert\(i, v\), len\(\), \[i\] \(read and "
             r"stored\), for loops, sum\(\), min\(\), max\(\) and np.array\(\)", 4, "out.extend"),
    ("a list in a chained assignment", """
        @unpython.type('int64', 'int64')
        def f(n):
            a = b = []
            return n
        """, r"a list in a chained assignment would be one list under several names", 3, "[]"),
    ("a list returned without its type", """
        @unpython.type('int64', 'ndarray[int64, 1]')
        def f(n):
            out = [1, n]
            return out
        """, r"this returns the list 'out' of int64 items: declare the return type "
             r"'list\[int64\]' \(or return np.array\(out\)\)", 4, "out\n"),
    ("a slice of a list in an expression", """
        @unpython.type('int64', 'int64')
        def f(n):
            out = [1, n]
            return out[1:][0]
        """, r"a list takes integer indices in compiled code \(out\[i\]\); a slice of it is a "
             r"new list bound to a name \(out_part = out\[lo:hi\]\)", 4, "out[1:]"),
    ("append to the list a loop iterates over", """
        @unpython.type('int64', 'int64')
        def f(n):
            out = [1, n]
            for v in out:
                out.append(v)
            return len(out)
        """, r"this loop appends to 'out', the list it iterates over", 5, "out.append"),
    ("append to an array", """
        @unpython.type('ndarray[float64, 1]', 'int64')
        def f(a):
            a.append(1.0)
            return 0
        """, r"'a' is ndarray\[float64, 1\]: append\(\) is the method of a list", 3, "a.append"),
    ("print of a list", """
        @unpython.type('int64', None)
        def f(n):
            out = [n]
            print(out)
        """, r"'out' is a list; a list is used in compiled code through len\(out\), out\[i\]", 4,
     "out)"),
    ("string constant", """
        @unpython.type('int64', 'int64')
        def f(n):
            x = 'text'
            return n
        """, r"a str constant is not a value compiled code has: strings are NumPy's options "
             r"\(mode='edge'\), messages .* and float\('inf'\)", 3, "'text'"),
    ("float of a string that is no number", """
        @unpython.type('int64', 'float64')
        def f(n):
            return n * float('infinite')
        """, r"float\('infinite'\) raises ValueError in the interpreter: float\(\) of a string "
             r"takes a number, 'inf', '-inf' or 'nan'", 3, "'infinite'"),
    ("is comparison", """
        @unpython.type('int64', 'bool')
        def f(n):
            return n is None
        """, r"only < <= > >= == != comparisons", 3, "n is"),
    ("matrix_power of a power not written out", """
        @unpython.type('ndarray[float64, 2]', 'int64', 'ndarray[float64, 2]')
        def f(a, n):
            return np.linalg.matrix_power(a, n)
        """, r"np.linalg.matrix_power\(a, n\) takes a literal power n >= 0 in compiled code",
     3, "np.linalg"),
    ("matmul of 3-D complex arrays", """
        @unpython.type('ndarray[complex128, 3]', 'float64')
        def f(a):
            b = a @ a
            return 0.0
        """, r"np.matmul\(\) / '@' of arrays of more than 2 dimensions takes real numbers in "
             r"compiled code, not complex128", 3, "a @ a"),
    ("shape tuple indexed by a variable", """
        @unpython.type('ndarray[float64, 2]', 'int64', 'int64')
        def f(a, k):
            s = a.shape
            return s[k]
        """, r"a tuple is indexed with one integer literal or a slice of literals", 4, "s[k]"),
    ("unsupported attribute", """
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            b = a.flags
            return 0.0
        """, r"attribute 'flags' is not supported", 3, "a.flags"),
    ("unsupported array method", """
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            return a.tolist()
        """, r"the array method '.tolist\(\)' is not supported", 3, "a.tolist"),
    ("transpose axes not literals", """
        @unpython.type('ndarray[float64, 2]', 'int64', 'float64')
        def f(a, k):
            return np.sum(np.transpose(a, (k, 0)))
        """, r"the axes of np.transpose\(\) must be integer literals", 3, "np.transpose"),
    ("subtract two numpy bools", """
        @unpython.type('ndarray[bool, 1]', 'int64')
        def f(m):
            return m[0] - m[1]
        """, r"operator - is not defined for bool and bool", 3, "m[0] - m[1]"),
    ("index arrays apart", """
        @unpython.type('ndarray[float64, 3]', 'ndarray[int64, 1]', 'float64')
        def f(a, idx):
            return np.sum(a[idx, :, idx])
        """, r"index arrays with integer indices or other index arrays on both sides of a "
             r"slice or None are not supported: NumPy puts the indexed dimension first there "
             r"\(a\[0, :, idx\] is a\[0\]\[:, idx\].T\); index in two steps", 3, "a[idx, :, idx]"),
    ("index array apart from an integer", """
        @unpython.type('ndarray[float64, 3]', 'ndarray[int64, 1]', 'float64')
        def f(a, idx):
            return np.sum(a[0, :, idx])
        """, r"NumPy puts the indexed dimension first there", 3, "a[0, :, idx]"),
    ("a store into an index array's result", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[int64, 1]', None)
        def f(a, idx):
            a[idx][0] = 1.0
        """, r"a store into the result of an index array or mask \(a\[idx\]\[j\] = v\) writes "
             r"a copy, not a", 3, "a[idx][0]"),
    ("index array of two dimensions beside another index", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[int64, 2]', 'float64')
        def f(a, idx):
            return np.sum(a[idx, 0])
        """, r"index arrays \(NumPy's advanced indexing\) are supported as 1-D integer arrays "
             r"side by side .*, one integer array of more dimensions alone and read", 3,
     "idx, 0]"),
    ("dtype parameter used as a value", """
        @unpython.type('int64', 'type[float32]', 'int64')
        def f(n, dtype):
            return n + dtype
        """, r"'dtype' is a dtype \(a parameter of type type\[float32\]\), which compiled code "
             r"takes only as the dtype of an allocation or conversion", 3, "dtype"),
    ("a dtype argument of another dtype", """
        @unpython.type('int64', 'type[float32]', 'ndarray[float32, 1]')
        def g(n, dtype):
            return np.zeros(n, dtype)

        @unpython.type('int64', 'ndarray[float32, 1]')
        def f(n):
            return g(n, np.float64)
        """, r"argument of g\(\): type\[float64\] cannot become type\[float32\]", 7,
     "np.float64"),
    ("a default dtype of no signature", """
        @unpython.type('int64', 'type[float32]', 'ndarray[float32, 1]')
        def g(n, dtype=np.int8):
            return np.zeros(n, dtype)
        """, r"the default dtype int8 of 'dtype' is in no signature of 'g'; add one with "
             r"'type\[int8\]' there", 2, "np.int8"),
    ("a dtype returned", """
        @unpython.type('int64', 'type[float32]')
        def g(n):
            return n
        """, r"a function returns no dtype \(type\[float32\] is a parameter's type\)", 2,
     "def"),
    ("assignment through an index array of two dimensions", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 2]', None)
        def f(a, idx):
            a[idx] = 0.0
        """, r"one integer array of more dimensions alone and read \(lut\[img\]\)", 3, "idx]"),
    ("mask before another index", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[bool, 1]', None)
        def f(a, m):
            a[m, 0] = 1.0
        """, r"one boolean mask of the shape of the array indexed \(a\[a < 0\] = 0, "
             r"a\[i\]\[a\[i\] < 0\] = 0\)", 3, "m, 0]"),
    ("two ellipses", """
        @unpython.type('ndarray[float64, 2]', None)
        def f(a):
            a[..., ...] = 1.0
        """, r"an index can only have a single ellipsis", 3, "...] = 1.0"),
    ("ellipsis read as a 0-d array", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            return a[0, ...]
        """, r"make a 0-d array in NumPy.*drop the '...' to read the element", 3, "...]"),
    ("dtype as a value", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float32, 1]')
        def f(a):
            return np.sum(a, 0, np.float32)
        """, r"np.float32 is a dtype, which compiled code takes only as the dtype of an "
             r"allocation or conversion \(np.zeros\(n, dtype=np.float32\)", 3, "np.float32)"),
    ("dtype twice", """
        @unpython.type('int64', 'ndarray[float32, 1]')
        def f(n):
            return np.full(n, 1.0, np.float32, dtype=np.float32)
        """, r"np.full\(\) got the dtype twice", 3, "np.full"),
    ("assignment into a computed array", """
        @unpython.type('ndarray[float64, 2]', None)
        def f(a):
            (a + 1.0)[0, :] = 2.0
        """, r"this assigns into a computed array, which has no effect; assign into a slice of "
             r"an array variable \(or of its view a.T, np.flip\(a\)\)", 3, "(a + 1.0)"),
    ("truth value of an array", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            if a > 0:
                return 1.0
            return 0.0
        """, r"the truth value of an array is ambiguous; reduce it with np.any", 3, "a > 0"),
    ("non-literal axis", """
        @unpython.type('ndarray[float64, 2]', 'int64', 'ndarray[float64, 1]')
        def f(a, k):
            return np.sum(a, axis=k)
        """, r"axis must be an integer literal", 3, "k)"),
    ("in-place update of another kind", """
        @unpython.type('ndarray[int64, 1]', None)
        def f(a):
            a += 1.5
        """, r"'\+=' would store float64 values in the int64 array", 3, "a += 1.5"),
    ("non-literal shape index", """
        @unpython.type('ndarray[float64, 2]', 'int64', 'int64')
        def f(a, k):
            return a.shape[k]
        """, r"the shape index must be an integer literal", 3, "k]"),
    ("shape index out of range", """
        @unpython.type('ndarray[float64, 2]', 'int64')
        def f(a):
            return a.shape[2]
        """, r"'a' has 2 dimension\(s\); shape index 2 is\s+out of range", 3, "a.shape[2]"),
    # --- calls ----------------------------------------------------------------------------
    ("unsupported call", """
        @unpython.type('int64', 'int64')
        def f(n):
            return id(n)
        """, r"call to 'id' is not supported", 3, "id"),
    ("numpy function not supported", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            return np.lexsort(a)
        """, r"call to 'numpy.lexsort' is not supported", 3, "np.lexsort"),
    ("unsupported numpy function with keywords", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[int64, 1]')
        def f(a, b):
            return np.lexsort(a, axis=0)
        """, r"call to 'numpy.lexsort' is not supported", 3, "np.lexsort"),
    ("np.ndarray over a buffer", """
        @unpython.type('int64', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(n, a):
            return np.ndarray((n,), dtype=np.float64, buffer=a)
        """, r"write np.empty\(shape, dtype=...\)", 3, "np.ndarray"),
    ("keyword arguments", """
        @unpython.type('float64', 'float64')
        def f(x):
            return round(x, ndigits=2)
        """, r"keyword arguments of 'round' are not supported", 3, "round"),
    ("math arity", """
        @unpython.type('float64', 'float64')
        def f(x):
            return math.sqrt(x, x)
        """, r"math.sqrt\(\) takes 1 argument\(s\), got 2", 3, "math.sqrt"),
    ("min of one value", """
        @unpython.type('float64', 'float64')
        def f(x):
            return min(x)
        """, r"'x' is not an array", 3, "x)"),       # min of one argument walks an array
    ("compiled call arity", """
        @unpython.type('float64', 'float64')
        def g(x):
            return x

        @unpython.type('float64', 'float64')
        def f(x):
            return g(x, x)
        """, r"g\(\) takes 1 argument\(s\), got 2", 7, "g(x, x)"),
    ("lossy argument of compiled call", """
        @unpython.type('int64', 'int64')
        def g(n):
            return n

        @unpython.type('float64', 'int64')
        def f(x):
            return g(x)
        """, r"argument of g\(\).*float64 value cannot be stored in int64", 7, "x)"),
    ("non-literal dtype", """
        @unpython.type('int64', 'ndarray[float64, 1]')
        def f(n):
            t = 3
            return np.zeros(n, t)
        """, r"'t' is not a dtype \(int64\(weak\)\); give a dtype such as np.float64, 't.dtype' "
             r"of an array, or a parameter of type 'type\[float64\]'", 4, "t)"),
    ("string dtype", """
        @unpython.type('int64', 'int64')
        def f(n):
            a = np.zeros(n, np.str_)
            return n
        """, r"the dtype must be a literal", 3, "np.str_"),
    # --- indexing -------------------------------------------------------------------------
    ("slice step not literal", """
        @unpython.type('ndarray[float64, 1]', 'int64', 'float64')
        def f(a, k):
            return np.sum(a[::k])
        """, r"a slice step must be an integer literal", 3, "k]"),
    ("a view returned as a scalar", """
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            return a[0]
        """, r"cannot return ndarray\[float64, 1\] as float64", 3, "a[0]"),
    ("too many indices", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            return a[0][1]
        """, r"too many indices: the array has 1 dimension\(s\)", 3, "a[0][1]"),
    ("float index", """
        @unpython.type('ndarray[float64, 1]', 'float64', 'float64')
        def f(a, x):
            return a[x]
        """, r"array indices must be integers, got float64", 3, "x]"),
    ("indexing a scalar", """
        @unpython.type('float64', 'float64')
        def f(x):
            return x[0]
        """, r"'x' is float64, not an array", 3, "x[0]"),
    ("array truth", """
        @unpython.type('ndarray[float64, 1]', 'int64')
        def f(a):
            if a:
                return 1
            return 0
        """, r"truth value of an array is ambiguous", 3, "a:"),
    ("array into element", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def f(a, b):
            a[0] = b
        """, r"cannot store an array into an array element", 3, "b\n"),
    # --- names and types ------------------------------------------------------------------
    ("undefined name", """
        @unpython.type('int64', 'int64')
        def f(n):
            return n + undefined_name
        """, r"name 'undefined_name' is not defined", 3, "undefined_name"),
    ("module global assigned twice", """
        LIMIT = 10
        LIMIT = 11

        @unpython.type('int64', 'int64')
        def f(n):
            return n + LIMIT
        """, r"'LIMIT' is bound more than once in this module \(assigned at line 6; assigned at "
             r"line 7\); a module-level name read by a compiled function must be assigned "
             r"exactly once", 6, "LIMIT"),
    ("module global not a number", """
        TABLE = np.zeros(3)

        @unpython.type('float64', 'float64')
        def f(x):
            return x + TABLE
        """, r"'TABLE' \(line 6\) is not a numeric constant: its value is not made of number "
             r"literals", 5, "TABLE"),
    ("module global rebound by a function", """
        LIMIT = 10

        def reset():
            global LIMIT
            LIMIT = 0

        @unpython.type('int64', 'int64')
        def f(n):
            return n + LIMIT
        """, r"'LIMIT' is bound more than once .*declared global in function 'reset'", 9,
        "LIMIT"),
    ("module function as a value", """
        def g():
            return 1

        @unpython.type('int64', 'int64')
        def f(n):
            return n + g
        """, r"'g' is defined at line 6; a module-level name read by a compiled function must be "
             r"a numeric constant", 6, "g\n"),
    ("module constant of a math function that raises", """
        LOG0 = math.log(0.0)

        @unpython.type('float64', 'float64')
        def f(x):
            return x + LOG0
        """, r"'LOG0' \(line 6\) is not a numeric constant: computing it raises ValueError", 5,
        "LOG0"),
    ("module constant dividing by zero", """
        STEP = 1 // 0

        @unpython.type('int64', 'int64')
        def f(n):
            return n + STEP
        """, r"'STEP' \(line 6\) is not a numeric constant: computing it raises "
             r"ZeroDivisionError", 5, "STEP"),
    # (At the function's top level a name bound again to another type is a new variable, as
    # in Python; inside a loop or branch it keeps one type.)
    ("lossy assignment float into int", """
        @unpython.type('float64', 'int64')
        def f(x):
            n = np.int64(1)
            for i in range(2):
                n = x
            return n
        """, r"'n' is int64 \(first assigned on line 8\); a float64 value cannot be stored in "
             r"int64 without loss", 5, "n = x"),
    ("lossy assignment float64 into float32", """
        @unpython.type('float32', 'float64', 'float32')
        def f(x, y):
            s = x
            if y > 0:
                s = y * np.float64(2.0)
            return s
        """, r"'s' is float32 \(first assigned on line 8\); a float64 value cannot be stored "
             r"in float32", 5, "s = y"),
    ("lossy into declared local", """
        @unpython.locals(k='int32')
        @unpython.type('int64', 'int64')
        def f(n):
            k = n
            return k
        """, r"'k' is int32 \(declared\); a int64 value cannot be stored in int32", 4, "k = n"),
    ("literal out of range", """
        @unpython.type('int8', 'int8')
        def f(x):
            while x < 0:
                x = 300
            return x
        """, r"300 does not fit in int8", 4, "x = 300"),
    ("literal out of range of an operation", """
        @unpython.type('int32', 'int32')
        def f(x):
            return x + 3000000000
        """, r"3000000000 does not fit in int32, the type of this operation", 3, "3000000000"),
    ("negative literal with an unsigned integer", """
        @unpython.type('uint8', 'uint8')
        def f(x):
            return x * -1
        """, r"-1 does not fit in uint8", 3, "-1"),
    ("lossy return", """
        @unpython.type('float64', 'int64')
        def f(x):
            return x * 2.0
        """, r"cannot return float64 as int64", 3, "x * 2.0"),
    ("return value from a None function", """
        @unpython.type('int64', None)
        def f(n):
            return n
        """, r"declared to return None", 3, "return"),
    ("float range argument", """
        @unpython.type('float64', 'int64')
        def f(x):
            s = 0
            for i in range(x):
                s += i
            return s
        """, r"range\(\) arguments must be integers, got float64", 4, "x)"),
    ("range step zero", """
        @unpython.type('int64', 'int64')
        def f(n):
            for i in range(0, n, 0):
                pass
            return n
        """, r"range\(\) step must not be zero", 3, "0):"),
    ("range with four arguments", """
        @unpython.type('int64', 'int64')
        def f(n):
            for i in range(0, n, 1, 2):
                pass
            return n
        """, r"range\(\) takes 1 to 3 positional arguments", 3, "range("),
    ("iterating an empty tuple", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            s = 0.0
            for x in ():
                s += x
            return s
        """, r"a loop over a tuple or list written out takes its items written out \(no "
             r"\*values\), at least one", 4, "()"),
    ("iterating a tuple of starred values", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            s = 0.0
            for x in [*a, 1.0]:
                s += x
            return s
        """, r"a loop over a tuple or list written out takes its items written out \(no "
             r"\*values\), at least one", 4, "[*a"),
    ("unpacking items of another length written out", """
        @unpython.type('int64', 'int64')
        def f(n):
            for dx, dy in ((0, 1), (1, 0, 2)):
                n += dx * dy
            return n
        """, r"a loop over a tuple or list written out unpacks items written out with one value "
             r"per name into plain names here \(for dx, dy in \(\(0, 1\), \(1, 0\)\)\): "
             r"2 name\(s\)", 3, "((0, 1)"),
    ("assigning to a slice of a.flat", """
        @unpython.type('ndarray[float64, 2]', None)
        def f(a):
            a.flat[2:5] = 0.0
        """, r"assigning to a slice of a.flat is not supported in compiled code; assign the "
             r"elements in a loop \(for k in range\(2, 5\): a.flat\[k\] = v\)", 3, "a.flat"),
    ("a.flat with two indices", """
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            return a.flat[1, 2]
        """, r"a.flat takes one integer index in compiled code \(a.flat\[i\], counted in C "
             r"order\), or a slice to read", 3, "1, 2"),
    ("a.flat[i] in a conditional expression", """
        @unpython.type('ndarray[float64, 2]', 'int64', 'float64')
        def f(a, i):
            return a.flat[i] if i > 0 else 0.0
        """, r"a.flat\[i\] is read here inside a conditional expression .*put it in a "
             r"variable first", 3, "a.flat[i]"),
    ("a name for a.flat bound twice", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64')
        def f(a, b):
            g = a.flat
            g = b.flat
            return g[0]
        """, r"a name for a.flat is supported where it is bound once to the attribute of an "
             r"array's name that is not assigned after it \(f = a.flat\); write a.flat\[i\] "
             r"\(or a.ravel\(\)\) where 'g' is used", 3, "a.flat"),
    ("a.flat indexed by an array", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[int64, 1]', 'float64')
        def f(a, idx):
            a.flat[idx] = 1.0
            return a[0, 0]
        """, r"a.flat indexed by an array is not supported in compiled code; read "
             r"a.ravel\(\)\[idx\], or assign a.flat\[i\] in a loop over the indices", 3,
     "a.flat"),
    ("a.flat indexed by a float", """
        @unpython.type('ndarray[float64, 2]', 'float64', 'float64')
        def f(a, x):
            return a.flat[x]
        """, r"a.flat takes an integer index, got float64", 3, "a.flat"),
    ("np.ndindex without lengths", """
        @unpython.type('int64', 'int64')
        def f(n):
            for idx in np.ndindex():
                n += 1
            return n
        """, r"np.ndindex\(\) takes the lengths here: np.ndindex\(n, m\), np.ndindex\(\(n, "
             r"m\)\), np.ndindex\(a.shape\) or np.ndindex\(\*a.shape\)", 3, "np.ndindex"),
    ("np.ndindex of a tuple variable", """
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            shape = a.shape
            s = 0.0
            for idx in np.ndindex(shape):
                s += a[idx]
            return s
        """, r"np.ndindex\(\) of tuple\[int64.*\] is not supported in compiled code; give the "
             r"lengths \(np.ndindex\(n, m\)\) or an array's shape \(np.ndindex\(a.shape\)\)",
     5, "shape)"),
    ("np.ndindex of lengths unpacked into other names", """
        @unpython.type('int64', 'int64')
        def f(n):
            for i, j in np.ndindex(n, n, 2):
                n += i * j
            return n
        """, r"np.ndindex\(\) of 3 length\(s\) unpacks into as many names here, not 2", 3,
     "i, j"),
    ("np.ndindex of a shape unpacked into other names", """
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            s = 0.0
            for i, j, k in np.ndindex(a.shape):
                s += a[i, j]
            return s
        """, r"np.ndindex\(\) of 2 dimension\(s\) unpacks into as many names, not 3", 4,
     "for"),
    ("np.ndindex into an element", """
        @unpython.type('ndarray[int64, 1]', None)
        def f(a):
            for a[0] in np.ndindex(3):
                pass
        """, r"a loop over np.ndindex\(\) binds one name \(the tuple of indices\) or unpacks "
             r"into plain names", 3, "a[0]"),
    ("iterating an array the loop rebinds", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            s = 0.0
            for x in a:
                a = a[1:]
                s += x
            return s
        """, r"this loop assigns 'a', the array it iterates over", 5, "a = a"),
    ("iterating a scalar", """
        @unpython.type('int64', 'int64')
        def f(n):
            s = 0
            for x in n:
                s += x
            return s
        """, r"'n' is not an array", 4, "n:"),
    ("float loop variable", """
        @unpython.type('int64', 'int64')
        def f(n):
            i = 0.5
            for i in range(n):
                pass
            return n
        """, r"loop variable 'i' is float64 elsewhere", 4, "for"),
    ("invert a bool", """
        @unpython.type('bool', 'bool')
        def f(b):
            return ~b
        """, r"'~' on a bool is ambiguous", 3, "~b"),
    ("invert a float", """
        @unpython.type('float64', 'float64')
        def f(x):
            return ~x
        """, r"'~' needs an integer, got float64", 3, "~x"),
    ("bitwise on floats", """
        @unpython.type('float64', 'float64')
        def f(x):
            return x & 1
        """, r"operator & is not defined for float64", 3, "x & 1"),
    ("call returning None used as value", """
        @unpython.type('int64', None)
        def g(n):
            pass

        @unpython.type('int64', 'int64')
        def f(n):
            x = g(n)
            return n
        """, r"this call returns no value", 7, "g(n)"),
    # --- annotations ----------------------------------------------------------------------
    ("arity of @unpython.type", """
        @unpython.type('int64', 'int64', 'int64')
        def f(n):
            return n
        """, r"@unpython.type for 'f' lists 3 type\(s\); it needs one per parameter \(1\)", 2,
        "def"),
    ("missing return type", """
        @unpython.type('int64')
        def f(n):
            return n
        """, r"lists 1 type\(s\)", 2, "def"),
    ("bad type string", """
        @unpython.type('float65', 'int64')
        def f(x):
            return 0
        """, r"unknown scalar type 'float65'", 2, "def"),
    ("object type", """
        @unpython.type('object', 'int64')
        def f(x):
            return 0
        """, r"type 'object' \(object\) is not supported", 2, "def"),
    # --- complex numbers ------------------------------------------------------------------
    ("complex stored into floats", """
        @unpython.type('ndarray[float64, 1]', 'complex128', 'None')
        def f(a, z):
            a[0] = z * 2
        """, r"storing complex values into a float64 array would drop their imaginary part.*"
             r"z.real", 3, "z * 2"),
    ("complex into a float variable", """
        @unpython.type('complex128', 'float64')
        def f(z):
            x = np.float64(1.0)
            for i in range(3):
                x = z
            return x
        """, r"a complex128 value cannot be stored in float64; take its .real", 5, "x"),
    ("complex order", """
        @unpython.type('complex128', 'complex128', 'bool')
        def f(a, b):
            return a < b
        """, r"'<' of complex numbers: they have no order.*abs\(z\)", 3, "a < b"),
    ("math of complex", """
        @unpython.type('complex128', 'float64')
        def f(z):
            return math.sqrt(z)
        """, r"math.sqrt is not defined for complex values here", 3, "math.sqrt"),
    ("maximum of complex", """
        @unpython.type('ndarray[complex128, 1]', 'ndarray[complex128, 1]')
        def f(z):
            return np.maximum(z, 0)
        """, r"np.maximum is not defined for complex values", 3, "np.maximum"),
    ("max of complex array", """
        @unpython.type('ndarray[complex128, 1]', 'complex128')
        def f(z):
            return z.max()
        """, r"np.max\(\) of complex values is not supported.*np.abs\(z\)", 3, "z.max()"),
    ("float of complex", """
        @unpython.type('complex128', 'float64')
        def f(z):
            return float(z)
        """, r"float\(\) is not defined for complex values", 3, "float(z)"),
    ("malformed array type", """
        @unpython.type('ndarray[float64]', 'int64')
        def f(a):
            return 0
        """, r"cannot read array type 'ndarray\[float64\]'", 2, "def"),
    ("zero-dimensional array type", """
        @unpython.type('ndarray[float64, 0]', 'int64')
        def f(a):
            return 0
        """, r"arrays need at least one dimension", 2, "def"),
    ("parameter typed None", """
        @unpython.type(None, 'int64')
        def f(a):
            return 0
        """, r"parameters need a type; None is only a return type", 2, "def"),
    ("non-string annotation", """
        @unpython.type(float, 'int64')
        def f(a):
            return 0
        """, r"type annotations must be strings", 1, "float"),
    ("type alias assigned twice", """
        F2 = 'ndarray[float64, 2]'
        F2 = 'ndarray[float32, 2]'

        @unpython.type(F2, None)
        def f(a):
            pass
        """, r"'F2' is bound more than once in this module \(assigned at line 6; assigned at "
             r"line 7\); a type alias must be assigned exactly once", 4, "F2, None"),
    ("type alias rebound through global", """
        F2 = 'ndarray[float64, 2]'

        def reset():
            global F2
            F2 = 'int64'

        @unpython.type(F2, None)
        def f(a):
            pass
        """, r"'F2' is bound more than once.*declared global in function 'reset' at line 9",
        7, "F2, None"),
    ("type alias of a non-string", """
        N = 2

        @unpython.type('ndarray[float64, ' + N + ']', None)
        def f(a):
            pass
        """, r"'N' \(line 6\) is not a constant string", 3, "N + "),
    ("f-string type", """
        T = 'float64'

        @unpython.locals(t=f'ndarray[{T}, 1]')
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            pass
        """, r"f-strings are not accepted as type strings", 3, "f'"),
    ("gpu without type", """
        @unpython.gpu
        def f(a):
            return 0
        """, r"function 'f' needs @unpython.type\(\.\.\.\) to be compiled", 2, "def"),
    ("unknown decorator", """
        @unpython.fast
        @unpython.type('int64', 'int64')
        def f(n):
            return n
        """, r"unknown unpython decorator 'unpython.fast'", 1, "unpython.fast"),
    ("star parameter", """
        @unpython.type('int64', 'int64')
        def f(n, *rest):
            return n
        """, r"plain parameters only \(no \*args, \*\*kwargs, keyword-only", 2, "def"),
    ("default None", """
        @unpython.type('int64', 'int64', 'int64')
        def f(n, m=None):
            return n
        """, r"None is not a default of compiled functions: each parameter has one type", 2,
        "None"),
    ("default string", """
        @unpython.type('int64', 'int64', 'int64')
        def f(n, m='x'):
            return n
        """, r"defaults of compiled functions are numbers, True/False, numeric module constants "
             r"or arithmetic of those$", 2, "'x'"),
    ("default float of an int parameter", """
        @unpython.type('int64', 'int64', 'int64')
        def f(n, m=2.5):
            return n
        """, r"this default does not suit its parameter's type: a float64 value cannot be stored "
             r"in int64 without loss", 2, "2.5"),
    ("default out of range", """
        @unpython.type('int64', 'uint8', 'int64')
        def f(n, m=-1):
            return n
        """, r"-1 does not fit in uint8", 2, "-1"),
    ("default of an array parameter", """
        @unpython.type('int64', 'ndarray[float64, 1]', 'int64')
        def f(n, a=0.0):
            return n
        """, r"a parameter of type ndarray\[float64, 1\] takes no default", 2, "0.0"),
    ("default constant assigned later", """
        @unpython.type('int64', 'int64', 'int64')
        def f(n, m=LATER):
            return n

        LATER = 3
        """, r"'LATER' is assigned at line 10, after this use", 2, "LATER"),
    ("missing argument of a compiled call", """
        @unpython.type('int64', 'int64', 'int64')
        def g(n, m=2):
            return n * m

        @unpython.type('int64', 'int64')
        def f(n):
            return g(m=n)
        """, r"g\(\) is missing a value for its parameter 'n'", 7, "g(m"),
    ("unknown keyword of a compiled call", """
        @unpython.type('int64', 'int64', 'int64')
        def g(n, m=2):
            return n * m

        @unpython.type('int64', 'int64')
        def f(n):
            return g(n, k=n)
        """, r"g\(\) has no parameter 'k'", 7, "n)"),
    ("keyword repeating a positional argument", """
        @unpython.type('int64', 'int64', 'int64')
        def g(n, m=2):
            return n * m

        @unpython.type('int64', 'int64')
        def f(n):
            return g(n, 3, m=n)
        """, r"g\(\) gets two values for its parameter 'm'", 7, "n)"),
    ("syntax error", """
        @unpython.type('int64', 'int64')
        def f(n):
            return n +
        """, r"syntax error", 3, "\n"),
    # --- prange ---------------------------------------------------------------------------
    ("shared scalar write in prange", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            s = 0.0
            for i in prange(a.shape[0]):
                s = s * 2.0 + a[i]
            return s
        """, r"'s' is shared by all iterations of this prange \(it holds a value from before "
             r"the loop, read at line 10\), and iterations run in parallel\. Only reductions",
        5, "s = s"),
    ("reduction read elsewhere", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64')
        def f(a, b):
            s = 0.0
            for i in prange(a.shape[0]):
                s += a[i]
                b[i] = s
            return s
        """, r"'s' is shared by all iterations.*with x read\s+nowhere else in the loop", 5,
        "s += a[i]"),
    ("mixed reduction operators", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            s = 1.0
            for i in prange(a.shape[0]):
                s += a[i]
                s *= 2.0
            return s
        """, r"'s' is shared by all iterations", 5, "s += a[i]"),
    ("conditionally assigned shared scalar", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            last = 0.0
            for i in prange(a.shape[0]):
                if a[i] > 0.0:
                    last = a[i]
                a[i] = last
            return last
        """, r"'last' is shared by all iterations", 6, "last = a[i]"),
    ("break in prange", """
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(a.shape[0]):
                if a[i] < 0.0:
                    break
                a[i] = 1.0
        """, r"'break' out of a prange loop is not allowed", 5, "break"),
    ("return in prange", """
        @unpython.type('ndarray[float64, 1]', 'int64')
        def f(a):
            for i in prange(a.shape[0]):
                if a[i] < 0.0:
                    return i
            return -1
        """, r"'return' inside a prange loop is not allowed", 5, "return"),
    ("private read after the prange", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            t = 0.0
            for i in prange(a.shape[0]):
                t = a[i] * 2.0
                a[i] = t
            return t
        """, r"'t' is assigned in the iterations of the prange at line 9 \(line 10\) and read "
             r"here after the loop", 7, "t\n"),
    ("racy store to an array in prange", """
        @unpython.type('ndarray[int64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def f(idx, x, out):
            for i in prange(idx.shape[0]):
                out[idx[i]] = x[i]
        """, r"'out\[idx\[i\]\] = \.\.\.' may write one element in two iterations of the "
             r"prange at line 8: its index is not proved distinct per iteration, and iterations "
             r"run in parallel\. Index the array so that each iteration writes its own elements "
             r".*or write an update a\[e\] \+= v .*which is compiled as an atomic update", 4,
        "out[idx[i]]"),
    ("triu_indices with an unknown keyword", """
        @unpython.type('int64', 'ndarray[int64, 1]')
        def f(n):
            return np.triu_indices(n, offset=1)[0]
        """, r"np.triu_indices\(\) takes \(n, k, m\) in compiled code", 3, "np.triu_indices"),
    ("triu_indices of an expression in a conditional expression", """
        @unpython.type('ndarray[float64, 2]', 'int64', 'float64')
        def f(d, n):
            return np.sum(d[np.triu_indices(n + 1)]) if n > 0 else 0.0
        """, r"np.triu_indices\(n\) inside a conditional expression or a while condition takes "
             r"n as a name or a number", 3, "np.triu_indices"),
    ("a scalar compiled function given an array", """
        @unpython.type('float64', 'float64')
        def half(v):
            return v * 0.5

        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return half(a)
        """, r"half\(\) is declared for a float64 here and is given an array, "
             r"ndarray\[float64, 1\]: .*declare a signature that takes the array too", 7,
        "a)"),
    ("a read of an element another prange iteration writes", """
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(1, a.shape[0]):
                a[i] = a[i - 1] + 1.0
        """, r"'a\[i\] = a\[i - 1\] \+ 1\.0' reads a\[\(i - 1\)\], which another iteration of "
             r"the prange at line 8 may write \('a\[i\] = \.\.\.', line 9\): iterations run in "
             r"parallel, so it would read whichever value is there\. Use range\(\) for a loop "
             r"whose iterations must run in order", 4, "a[i] = a[i - 1]"),
    ("a centre read that the prange's iterations write", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 2]', None)
        def f(data, mean, cov):
            for i in prange(data.shape[1]):
                for j in range(data.shape[1]):
                    cov[i, j] = (data[0, i] - mean[i]) * (data[0, j] - mean[j])
                    mean[i] = 0.0
        """, r"reads mean\[j\], which another iteration of the prange at line 8 may write "
             r"\('mean\[i\] = \.\.\.', line 11\)", 5, "cov[i, j]"),
    ("two stores to one element in prange", """
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(a.shape[0] - 1):
                a[i] = 0.0
                a[i + 1] = 1.0
        """, r"'a\[i\] = \.\.\.' and 'a\[\(i \+ 1\)\] = \.\.\.' \(line 10\) may write one "
             r"element in two iterations of the prange at line 8: their indices are not proved "
             r"distinct", 4, "a[i] = 0.0"),
    ("atomic updates with two operators", """
        @unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', None)
        def f(idx, h):
            for i in prange(idx.shape[0]):
                h[idx[i]] += 1
                h[idx[i]] *= 2
        """, r"'h' is updated with \+ at line 9 and with \* here, in the prange at line 8; "
             r"updates that several iterations may make to one element are atomic, and must "
             r"use one operator", 5, "h[idx[i]] *= 2"),
    # --- np.linalg, np.cov, np.histogram --------------------------------------------------
    ("histogram with bins as a sequence", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]')
        def f(a):
            return np.histogram(a, [0.0, 0.5, 1.0])[0]
        """, r"np.histogram\(\) with bins given as a sequence is not supported in compiled "
             r"code; give the edges as a 1-D array", 3, "np.histogram(a, [0.0, 0.5, 1.0])"),
    ("histogram with 2-D edges", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 2]', 'ndarray[int64, 1]')
        def f(a, edges):
            return np.histogram(a, edges)[0]
        """, r"the edges of np.histogram\(\) must be a 1-D array of real numbers", 3, "edges)"),
    ("cholesky of a complex matrix", """
        @unpython.type('ndarray[complex128, 2]', 'ndarray[complex128, 2]')
        def f(a):
            return np.linalg.cholesky(a)
        """, r"np.linalg.cholesky\(\) of complex arrays is not supported in compiled code "
             r"\(solve, inv and det are\)", 3, "np.linalg.cholesky(a)"),
    ("meshgrid of a matrix", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(x, m):
            return np.meshgrid(x, m)[0]
        """, r"np.meshgrid\(\) takes 1-D arrays in compiled code, got ndarray\[float64, 2\]; "
             r"ravel it first", 3, "m)[0]"),
    ("repeat by an array of counts", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'ndarray[float64, 1]')
        def f(a, counts):
            return np.repeat(a, counts)
        """, r"the repeats of np.repeat\(\) must be an integer here, got ndarray\[int64, 1\]",
     3, "counts)"),
    ("tile by a float", """
        @unpython.type('ndarray[float64, 1]', 'float64', 'ndarray[float64, 1]')
        def f(a, r):
            return np.tile(a, r)
        """, r"the repetitions of np.tile\(\) must be an integer or a tuple of integers here",
     3, "r)"),
    ("polyval of a matrix of coefficients", """
        @unpython.type('ndarray[float64, 2]', 'float64', 'float64')
        def f(p, x):
            return np.polyval(p, x)
        """, r"the coefficients of np.polyval\(\) must be a 1-D array here, got "
             r"ndarray\[float64, 2\] \(np.poly1d is not supported\)", 3, "p, x)"),
    ("searchsorted with a sorter", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[int64, 1]',
                       'ndarray[int64, 1]')
        def f(a, v, order):
            return np.searchsorted(a, v, sorter=order)
        """, r"np.searchsorted\(\) with sorter= is not supported in compiled code; search "
             r"a\[sorter\]", 4, "np.searchsorted(a, v, sorter=order)"),
    ("interp with a period", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
                       'ndarray[float64, 1]')
        def f(x, xp, fp):
            return np.interp(x, xp, fp, period=360.0)
        """, r"np.interp\(\) with period= is not supported in compiled code; reduce x modulo "
             r"the period", 4, "np.interp(x, xp, fp, period=360.0)"),
    ("interp of complex values", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[complex128, 1]',
                       'ndarray[float64, 1]')
        def f(x, xp, fp):
            return np.interp(x, xp, fp)
        """, r"np.interp\(\) of ndarray\[complex128, 1\] \(fp\) is not supported in "
             r"compiled code", 4, "fp)"),
    ("histogram with weights and edges", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a, w):
            return np.histogram(a, a[:3], weights=w)[0]
        """, r"np.histogram\(\) with weights= and the edges given as an array is not supported "
             r"in compiled code .*give the number of bins and range=\(lo, hi\)", 3, "w)"),
    ("tuple into an element", """
        @unpython.type('ndarray[float64, 2]', None)
        def f(a):
            a[0, 0] = 1.0, 2.0
        """, r"a tuple is stored into an array here: store a tuple of scalars into a slice", 3,
     "1.0"),
    ("copyto with where", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def f(a, b):
            np.copyto(a, b, where=b > 0)
        """, r"np.copyto\(dst, src\) takes two arrays here \(casting= and where= are not "
             r"supported: write dst\[mask\] = src\[mask\]\)", 3, "np.copyto"),
    ("None by position where the default is not None", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
        def f(a):
            return a.var(1, None, None, None)
        """, r"None is not a value compiled code has; as an argument, give the others by "
             r"keyword instead \(a.var\(axis=1, ddof=1\)", 3, "None)"),
    ("shape assignment", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
        def f(a):
            a.shape = a.size
            return a
        """, r"assigning to an array's .shape is not supported in compiled code; write "
             r"a = a.reshape\(new_shape\)", 3, "a.shape"),
    ("histogram with density", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.histogram(a, 10, density=True)[0]
        """, r"np.histogram\(\) with density= is not supported in compiled code; divide the "
             r"counts", 3, "True)"),
    ("cov with fweights", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[int64, 1]', 'ndarray[float64, 2]')
        def f(m, fw):
            return np.cov(m, fweights=fw)
        """, r"np.cov\(\) with fweights= is not supported in compiled code \(supported: "
             r"rowvar=, bias=, ddof=\)", 3, "fw)"),
    ("cov of two arrays", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(m, y):
            return np.cov(m, y)
        """, r"for np.cov\(m, y\) write np.cov\(np.vstack\(\(m, y\)\)\)", 3, "np.cov(m, y)"),
    ("linalg of a stack of matrices", """
        @unpython.type('ndarray[float64, 3]', 'ndarray[float64, 3]')
        def f(a):
            return np.linalg.inv(a)
        """, r"np.linalg.inv\(\) is supported for one matrix \(a 2-D array\) in compiled code; "
             r"this has 3 dimension\(s\): loop over the leading ones", 3, "np.linalg.inv(a)"),
    ("percentile of a list of q with keepdims", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 3]')
        def f(a):
            return np.percentile(a, [25, 75], axis=1, keepdims=True)
        """, r"np.percentile\(\) of a list of q takes no keepdims= in compiled code: call it "
             r"once per q", 3, "True)"),
    ("clip with a_min alone", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.clip(a, 0.0)
        """, r"np.clip\(a, a_min, a_max\) \(or np.clip\(a, min=, max=\)\) takes a_min and a_max "
             r"both \(either may be None\), or min= and max= alone \(NumPy raises TypeError\)",
     3, "np.clip(a, 0.0)"),
    ("clip without a bound", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return a.clip(None, None)
        """, r"a.clip\(min=None, max=None\) needs a bound that is not None in compiled code "
             r"\(without bounds, write a.copy\(\)\)", 3, "a.clip(None, None)"),
    ("clip method with a_min", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return a.clip(a_min=0.0)
        """, r"a.clip\(min=None, max=None\) takes each bound once, by position or as min=, max= "
             r"\(NumPy raises TypeError\)", 3, "0.0)"),
    ("ptp with out", """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a, o):
            return np.ptp(a, 0, o)
        """, r"np.ptp\(a, axis=None, keepdims=False\) takes one array and axis=, keepdims= here",
     3, "np.ptp(a, 0, o)"),
    ("pad of another mode", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.pad(a, 2, mode='linear_ramp')
        """, r"np.pad\(\) takes mode 'constant' \(the default\), 'edge', 'wrap', 'reflect' or "
             r"'symmetric' in compiled code, written as a string; for another mode, pad with "
             r"one of these, then assign the border's slices", 3, "'linear_ramp'"),
    ("pad constant_values of another mode", """
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.pad(a, 2, 'edge', constant_values=1.0)
        """, r"np.pad\(\) takes constant_values only with mode='constant' \(NumPy raises "
             r"ValueError: unsupported keyword arguments for mode 'edge'\)", 3, "1.0)"),
    ("read where no path assigned", """
        @unpython.type('int64', 'float64')
        def f(n):
            if n > 0:
                x = 1.0
                return x
            return x
        """, r"'x' is read here, but no path to this line assigns it: the interpreter would "
             r"raise UnboundLocalError", 6, "x\n"),
]

if not hasattr(np, "trapz"):        # NumPy 2.4 removed it: compiled code must not have it either
    CASES.append(("trapz of a NumPy without it", """
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(y):
            return np.trapz(y)
        """, r"np.trapz is not in NumPy .* \(removed in 2.4: the interpreter raises "
                  r"AttributeError\); write np.trapezoid", 3, "np.trapz"))

BITWISE_FLOAT = ("""
        @unpython.type('ndarray[int64, 1]', 'float64')
        def f(a):
            s = 0.0
            for i in prange(a.shape[0]):
                s |= a[i]
            return s
        """)


def _source(body):
    return HEADER + textwrap.dedent(body).lstrip("\n")


def _build(tmp_path, capsys, body):
    path = tmp_path / "mod.py"
    path.write_text(_source(body))
    out = tmp_path / "out"
    status = main(["build", str(path), "-o", str(out)])
    captured = capsys.readouterr()
    return path, out, status, captured.err


@pytest.mark.parametrize("name, body, reason, line, at", CASES, ids=[c[0] for c in CASES])
def test_compile_error(tmp_path, capsys, name, body, reason, line, at):
    path, out, status, err = _build(tmp_path, capsys, body)
    assert status == 1
    assert "Traceback" not in err
    lines = err.rstrip("\n").split("\n")
    source_lines = _source(body).split("\n")
    line_no = HEADER.count("\n") + line
    source_line = source_lines[line_no - 1]
    col = (source_line + "\n").index(at)
    header = re.match(rf"^{re.escape(str(path))}:(\d+):(\d+): error: (.*)$", lines[0])
    assert header, lines[0]
    assert (int(header.group(1)), int(header.group(2))) == (line_no, col + 1), err
    assert re.search(reason, header.group(3), re.S), header.group(3)
    if name != "syntax error":
        assert lines[1] == source_line
        assert lines[2] == " " * col + "^"
    assert not out.exists() or not list(out.iterdir()), "a failed build wrote files"


def test_bitwise_reduction_of_floats_is_refused(tmp_path, capsys):
    """`s |= a[i]` with a float accumulator: Python itself refuses float | int, and so does
    the compiler, naming the operator."""
    _, _, status, err = _build(tmp_path, capsys, BITWISE_FLOAT)
    assert status == 1
    assert re.search(r"operator \| is not defined for float64 and int64", err)


def test_error_from_the_command_line(tmp_path):
    """The real command: exit code 1, the message on stderr, no traceback, no module."""
    path = tmp_path / "bad.py"
    path.write_text(_source(CASES[0][1]))
    done = subprocess.run([sys.executable, "-m", "unpy.cli", "build", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert f"{path}:8:5: error: 'With' statements are not supported" in done.stderr
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["bad.py"]


def test_first_error_stops_the_build_of_a_module_with_good_functions(tmp_path, capsys):
    body = """
        @unpython.type('int64', 'int64')
        def good(n):
            return n

        @unpython.type('int64', 'int64')
        def bad(n):
            return n[0]
        """
    path, out, status, err = _build(tmp_path, capsys, body)
    assert status == 1 and "'n' is int64" in err
    assert not out.exists() or not list(out.iterdir())
