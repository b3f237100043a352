// A spider with a syntax error on line 5, for main_test.go.
export default class Broken {
  name = "broken";
  parse(response) {
    return { title: response.css("h1::text").get() ;
  }
}
