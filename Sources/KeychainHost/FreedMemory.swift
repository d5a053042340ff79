internal import CLinux

/// Gives back to the system what the C allocator keeps of memory freed in many small blocks
/// (glibc's `malloc_trim`, which also trims each thread's arena).
///
/// An export holds every item it sends, sealed, in some six blocks an item; once they are freed
/// glibc keeps the pages for the thread that allocated them: 100,000 password items left the
/// server 60 MB larger for as long as it ran (94 MB resident, from 34). Called after an export
/// and an import, never on a request's path (it walks the heap, a few milliseconds).
package func releaseFreedMemory() {
    _ = kcd_release_freed_memory()
}
