import { StrictMode } from "react"
import { createRoot } from "react-dom/client"

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <main>
      <h1>image-policy</h1>
    </main>
  </StrictMode>
)
