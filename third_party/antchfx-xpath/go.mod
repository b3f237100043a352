module github.com/antchfx/xpath

go 1.14
