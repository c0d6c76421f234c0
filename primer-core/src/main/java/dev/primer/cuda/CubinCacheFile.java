package dev.primer.cuda;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * One entry of NVRTC's disk cache: the cubin followed by the SHA-256 of its bytes. The driver loads
 * a cubin by the sizes its own header states ({@code cuModuleLoadData} takes no length), so a file
 * cut short by a crash or another tool would make it read past the image, a segfault rather than
 * an error. An entry whose hash does not match is deleted and compiled again.
 */
final class CubinCacheFile {
    private static final int HASH_BYTES = 32;

    private CubinCacheFile() {}

    /** The cubin stored at {@code file}, or null when there is none or it is damaged (then it is deleted). */
    static byte[] read(Path file) {
        byte[] stored;
        try {
            if (!Files.isRegularFile(file)) return null;
            stored = Files.readAllBytes(file);
        } catch (IOException e) {
            return null;
        }
        int length = stored.length - HASH_BYTES;
        if (length > 0 && Arrays.equals(sha256(stored, length), 0, HASH_BYTES, stored, length, stored.length)) {
            return Arrays.copyOf(stored, length);
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // another process may hold or have replaced it; the compile goes ahead either way
        }
        return null;
    }

    /**
     * Stores {@code image} at {@code file}: written to a temporary file beside it and flushed to the
     * disk before it is renamed into place, so a reader sees a whole entry or none. Failures are
     * ignored: a cache that cannot be written only costs a compile next time.
     */
    static void write(Path file, byte[] image) {
        Path tmp = null;
        try {
            Files.createDirectories(file.getParent());
            tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer data = ByteBuffer.wrap(image), hash = ByteBuffer.wrap(sha256(image, image.length));
                while (data.hasRemaining()) out.write(data);
                while (hash.hasRemaining()) out.write(hash);
                out.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            tmp = null;
        } catch (IOException ignored) {
            // see above
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // nothing more to do
                }
            }
        }
    }

    private static byte[] sha256(byte[] bytes, int length) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(bytes, 0, length);
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
