#include "common/file_io.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/temp_dir.h"

namespace bfv::common {
namespace {

namespace fs = std::filesystem;

using test_support::TempDir;

std::vector<std::byte> Bytes(const std::string& text) {
    std::vector<std::byte> bytes;
    for (char c : text) bytes.push_back(static_cast<std::byte>(c));
    return bytes;
}

TEST(FileIo, WriteThenReadReturnsTheSameBytes) {
    TempDir dir;
    std::vector<std::byte> bytes = Bytes(std::string("abc\0def", 7));
    ASSERT_TRUE(WriteFileAtomic(dir.File("f.bin"), bytes).ok());
    Expected<std::vector<std::byte>> read = ReadFileBytes(dir.File("f.bin"));
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(*read, bytes);
}

TEST(FileIo, AtomicWriteLeavesNoTemporaryFile) {
    TempDir dir;
    ASSERT_TRUE(WriteFileAtomic(dir.File("f.bin"), Bytes("hello")).ok());
    EXPECT_EQ(dir.EntryCount(), 1);
    EXPECT_TRUE(fs::exists(dir.File("f.bin")));
}

TEST(FileIo, AtomicWriteReplacesAnExistingFile) {
    TempDir dir;
    ASSERT_TRUE(WriteFileAtomic(dir.File("f.bin"), Bytes("a much longer old content")).ok());
    ASSERT_TRUE(WriteFileAtomic(dir.File("f.bin"), Bytes("new")).ok());
    EXPECT_EQ(*ReadFileBytes(dir.File("f.bin")), Bytes("new"));
    EXPECT_EQ(dir.EntryCount(), 1);
}

TEST(FileIo, WritesAnEmptyFile) {
    TempDir dir;
    ASSERT_TRUE(WriteFileAtomic(dir.File("empty"), {}).ok());
    EXPECT_EQ(fs::file_size(dir.File("empty")), 0u);
}

TEST(FileIo, WriteIntoMissingDirectoryFailsAndLeavesNothing) {
    TempDir dir;
    std::string path = dir.File("missing/f.bin");
    Expected<void> written = WriteFileAtomic(path, Bytes("x"));
    ASSERT_FALSE(written.ok());
    EXPECT_NE(written.error().message.find("'" + path + "'"), std::string::npos)
        << written.error().message;
    EXPECT_NE(written.error().message.find("No such file or directory"), std::string::npos);
    EXPECT_EQ(dir.EntryCount(), 0);
}

TEST(FileIo, FailedRenameRemovesTheTemporaryFile) {
    TempDir dir;
    fs::create_directories(dir.File("target/child"));  // rename cannot replace a non-empty dir
    Expected<void> written = WriteFileAtomic(dir.File("target"), Bytes("x"));
    ASSERT_FALSE(written.ok());
    EXPECT_NE(written.error().message.find("cannot rename"), std::string::npos);
    EXPECT_EQ(dir.EntryCount(), 1);  // only "target"
}

TEST(FileIo, ReadingMissingFileNamesThePathAndReason) {
    TempDir dir;
    std::string path = dir.File("nope.bin");
    Expected<std::vector<std::byte>> read = ReadFileBytes(path);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().message, "cannot open '" + path + "': No such file or directory");
}

TEST(FileIo, ReadingADirectoryFails) {
    TempDir dir;
    fs::create_directories(dir.File("sub"));
    Expected<std::vector<std::byte>> read = ReadFileBytes(dir.File("sub"));
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("Is a directory"), std::string::npos);
}

TEST(AtomicFileWriter, WritesPiecesAtTheirOffsetsAndCommits) {
    TempDir dir;
    std::string path = dir.File("f.bin");
    Expected<AtomicFileWriter> file = AtomicFileWriter::Create(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_TRUE(file->WriteAt(6, Bytes("world")).ok());
    ASSERT_TRUE(file->WriteAt(0, Bytes("hello")).ok());
    EXPECT_FALSE(fs::exists(path)) << "nothing at the path before Commit";
    ASSERT_TRUE(file->Commit().ok());
    EXPECT_EQ(*ReadFileBytes(path), Bytes(std::string("hello\0world", 11))) << "a gap reads as 0";
    EXPECT_EQ(dir.EntryCount(), 1);
}

TEST(AtomicFileWriter, AWriterDroppedUncommittedLeavesTheOldFileAndNoOther) {
    TempDir dir;
    std::string path = dir.File("f.bin");
    ASSERT_TRUE(WriteFileAtomic(path, Bytes("old")).ok());
    {
        Expected<AtomicFileWriter> file = AtomicFileWriter::Create(path);
        ASSERT_TRUE(file.ok()) << file.error().message;
        AtomicFileWriter moved(std::move(*file));
        ASSERT_TRUE(moved.WriteAt(0, Bytes("half-written")).ok());
        EXPECT_EQ(dir.EntryCount(), 1) << "the file being written has no name";
    }
    EXPECT_EQ(*ReadFileBytes(path), Bytes("old"));
    EXPECT_EQ(dir.EntryCount(), 1);
}

// A process that dies while writing (SIGKILL, a crash: here _exit, which runs no destructor)
// leaves the old file and nothing else: the temporary file never had a name.
TEST(AtomicFileWriter, AProcessThatDiesWhileWritingLeavesNothingBehind) {
    TempDir dir;
    std::string path = dir.File("f.bin");
    ASSERT_TRUE(WriteFileAtomic(path, Bytes("old")).ok());
    pid_t child = ::fork();
    if (child == 0) {
        Expected<AtomicFileWriter> file = AtomicFileWriter::Create(path);
        bool written = file.ok() && file->WriteAt(0, Bytes("half-written")).ok();
        ::_exit(written ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(*ReadFileBytes(path), Bytes("old"));
    EXPECT_EQ(dir.EntryCount(), 1);
}

TEST(AtomicFileWriter, CreateInAMissingDirectoryNamesThePathAndTheReason) {
    TempDir dir;
    std::string path = dir.File("missing/f.bin");
    Expected<AtomicFileWriter> file = AtomicFileWriter::Create(path);
    ASSERT_FALSE(file.ok());
    EXPECT_NE(
        file.error().message.find("cannot write '" + path + "': cannot create a temporary file in"),
        std::string::npos)
        << file.error().message;
    EXPECT_NE(file.error().message.find("No such file or directory"), std::string::npos);
}

}  // namespace
}  // namespace bfv::common
