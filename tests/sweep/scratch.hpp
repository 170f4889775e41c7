// A scratch folder per test (tests run as parallel processes), removed afterwards.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace lmx::sweep::testing {

class Scratch {
 public:
  Scratch() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() / ("lmx-sweep-" + std::string(info->test_suite_name()) + "-" +
                                                     info->name() + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~Scratch() { std::filesystem::remove_all(dir_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  [[nodiscard]] std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace lmx::sweep::testing
