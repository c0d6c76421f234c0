package dev.primer.cpu;

import dev.primer.Op;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kernel classes specialised per operator, the way a C++ template is instantiated per type.
 *
 * <p>The Vector API turns a lane operation into machine code only when C2 sees its operator as a
 * constant. A loop shared by all operators sees a different one per call; then C2 keeps the loop's
 * vectors as heap objects (measured: 16-60 bytes allocated per element, 50x slower). So each kernel is
 * written once as a <i>template</i> class whose {@code static final} fields {@code OP} (and
 * {@code INCLUSIVE}) come from {@link #spec}, and this class defines one hidden copy of the template's
 * bytes per {@link Spec}: in each copy those fields are constants, every branch on them folds away, and
 * each copy's loops compile for exactly one operator.
 *
 * <p>A template must be a top-level class of this package with a no-argument constructor, used only
 * through the instances {@link #instance} returns (its own static initialiser fails outside a copy).
 */
final class Specialized {
    private Specialized() {}

    /** What a copy is specialised for. {@code inclusive} matters to scans only. */
    record Spec(Op op, boolean inclusive) {}

    private record Key(Class<?> template, Spec spec) {}

    private static final ConcurrentHashMap<Key, Object> COPIES = new ConcurrentHashMap<>();

    /** The copy's Spec; call from a template's static initialiser with {@code MethodHandles.lookup()}. */
    static Spec spec(MethodHandles.Lookup lookup) {
        try {
            return MethodHandles.classData(lookup, ConstantDescs.DEFAULT_NAME, Spec.class);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(lookup.lookupClass() + " is a template: use Specialized.instance", e);
        }
    }

    /** The (cached) instance of {@code template}'s copy for {@code spec}. */
    static <T> T instance(Class<? extends T> template, Class<T> type, Op op, boolean inclusive) {
        return type.cast(COPIES.computeIfAbsent(new Key(template, new Spec(op, inclusive)), Specialized::define));
    }

    private static Object define(Key key) {
        Class<?> template = key.template();
        byte[] bytes;
        try (InputStream in = template.getResourceAsStream(template.getSimpleName() + ".class")) {
            if (in == null) throw new IllegalStateException("class file of " + template + " not found");
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading the class file of " + template, e);
        }
        try {
            MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClassWithClassData(bytes, key.spec(), true);
            return copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("specialising " + template + " for " + key.spec(), e);
        }
    }
}
