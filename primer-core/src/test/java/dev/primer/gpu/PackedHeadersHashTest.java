package dev.primer.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The headers' hash that keys NVRTC's disk cache for custom operators (no GPU needed): the same in
 * every process, and a hash of the headers' names and bytes, so an edited header misses the cache.
 */
class PackedHeadersHashTest {
    @Test
    void isAStableHashOfTheHeadersContent() throws IOException, NoSuchAlgorithmException {
        String hash = CudaSources.headersHash();
        assertTrue(hash.matches("[0-9a-f]{64}"), hash);
        assertEquals(hash, CudaSources.headersHash());

        Path src = Path.of("src/main/cuda");
        Assumptions.assumeTrue(Files.isDirectory(src), "the kernel source tree is not here (a bundled test run)");
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (String header : CudaSources.HEADERS.stream().sorted().toList()) {
            byte[] bytes = Files.readAllBytes(src.resolve(header));
            sha.update((header + "\0" + bytes.length + "\0").getBytes(StandardCharsets.UTF_8));
            sha.update(bytes);
        }
        assertEquals(HexFormat.of().formatHex(sha.digest()), hash, "the packed headers are the source tree's");
    }
}
